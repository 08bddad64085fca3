-- The same file imported again (docs/payments.md, "Importing payments"), decided once an import
-- instead of every batch: `same_file_as` names the file's group, the first import of the business
-- that holds exactly these lines (same count, each line's fields equal in the same place). Set by
-- the first batch of the import with lines without a reference, under the business's lock of
-- repeated lines (repeatedLinePayments): to the group of an identical import already decided, else
-- to the earliest identical import (itself when none). The decisions of one business are taken one
-- after the other under that lock, so identical imports always share one group, and a batch reads
-- the payments of its group's other imports instead of comparing the file again. NULL until decided
-- (and for imports whose lines all have a reference: the reference is their guard).
ALTER TABLE payment_imports ADD COLUMN same_file_as uuid;
CREATE INDEX payment_imports_same_file ON payment_imports (business_id, same_file_as) WHERE same_file_as IS NOT NULL;

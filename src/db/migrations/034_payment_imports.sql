-- Payment imports (docs/payments.md, "Importing payments"): a CSV file of
-- payments, one line each, stored as it arrives and paid in the background by the payment-import
-- job (src/jobs/paymentImports.ts). Any number of processes may run the job: one claims an import
-- by taking a lease (lease_until) under FOR UPDATE SKIP LOCKED, and a process that dies leaves the
-- import to the others once the lease has passed; lines already decided are never decided again.
--
-- - payment_imports: one row per file, audited like every tenant table; its counters move as
--   batches of lines are decided.
-- - payment_import_lines: the lines as given (text, validated when paid) and their outcome:
--   pending, then accepted (with the payment's id), rejected (with the code and message the API
--   would give) or duplicate (the channel's reference was already paid). Not audited: operational
--   rows, up to 100,000 a file; the payments they make are audited.
CREATE TABLE payment_imports (
  business_id  uuid NOT NULL,
  id           uuid NOT NULL DEFAULT gen_random_uuid(),
  status       text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done', 'failed')),
  lines        integer NOT NULL CHECK (lines >= 0),
  accepted     integer NOT NULL DEFAULT 0,
  rejected     integer NOT NULL DEFAULT 0,
  duplicates   integer NOT NULL DEFAULT 0,
  created_by   text NOT NULL,
  -- the branch of the user who imported (a payment without one is taken there), as a payment's
  branch_id    uuid,
  created_at   timestamptz NOT NULL DEFAULT now(),
  finished_at  timestamptz,
  lease_until  timestamptz,
  PRIMARY KEY (business_id, id)
);
CREATE INDEX payment_imports_running ON payment_imports (lease_until) WHERE status = 'running';

CREATE TABLE payment_import_lines (
  business_id        uuid NOT NULL,
  import_id          uuid NOT NULL,
  line               integer NOT NULL,
  credit             text NOT NULL,
  amount             text NOT NULL,
  paid_on            text NOT NULL,
  method             text NOT NULL,
  channel            text NOT NULL,
  external_reference text NOT NULL,
  status             text NOT NULL DEFAULT 'pending'
    CHECK (status IN ('pending', 'accepted', 'rejected', 'duplicate')),
  code               text,
  message            text,
  payment_id         uuid,
  PRIMARY KEY (business_id, import_id, line),
  FOREIGN KEY (business_id, import_id) REFERENCES payment_imports (business_id, id)
);
CREATE INDEX payment_import_lines_status ON payment_import_lines (business_id, import_id, status, line);

CREATE TRIGGER audit_insert AFTER INSERT ON payment_imports REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();
CREATE TRIGGER audit_update AFTER UPDATE ON payment_imports REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();
CREATE TRIGGER audit_delete AFTER DELETE ON payment_imports REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();

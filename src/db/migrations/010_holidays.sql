-- Each business's holidays: a date and a name, at most one a date. Saturdays and Sundays are never
-- business days and are not listed here (src/domain/businessDays.ts).
--
-- The audit trigger (migration 006) logs a row's id as its record_id, so the table has an id as
-- well as its key (business_id, date).
CREATE TABLE holidays (
  business_id uuid NOT NULL REFERENCES businesses (id),
  date        date NOT NULL,
  name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  id          uuid NOT NULL DEFAULT gen_random_uuid() UNIQUE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (business_id, date)
);

CREATE TRIGGER audit_insert AFTER INSERT ON holidays REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();
CREATE TRIGGER audit_update AFTER UPDATE ON holidays REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();
CREATE TRIGGER audit_delete AFTER DELETE ON holidays REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();

-- The days an installment due on a non-business day is not late for: from its due date to the
-- next business day (0 when it is one). Kept by credit creation and by every holiday change
-- (src/services/holidays.ts). Migration 008 adds the same column; whichever runs first makes it.
ALTER TABLE installments ADD COLUMN IF NOT EXISTS tolerance_days integer NOT NULL DEFAULT 0 CHECK (tolerance_days >= 0);

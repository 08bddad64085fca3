-- Business settings (docs/applications.md "Settings"): one row per business, written by
-- PUT /api/settings; a business without a row has the defaults below. The time zone is not here:
-- it stays the business's own column (businesses.timezone), which the settings read and write.
CREATE TABLE business_settings (
  business_id       uuid NOT NULL REFERENCES businesses (id),
  -- the audit log's record_id for this row
  id                uuid NOT NULL DEFAULT gen_random_uuid(),
  -- with approval_required, employees grant credits only through applications
  approval_required boolean NOT NULL DEFAULT false,
  -- the largest amount an employee may approve; null: no limit
  employee_limit    numeric CHECK (employee_limit IS NULL OR employee_limit >= 0),
  -- reminders are only stored here; the daily run that sends them reads them
  reminders_enabled boolean NOT NULL DEFAULT false,
  before_due_days   integer[] NOT NULL DEFAULT '{3}',
  overdue_days      integer[] NOT NULL DEFAULT '{1,7}',
  locale            text NOT NULL DEFAULT 'es-AR' CHECK (locale IN ('es-AR', 'en')),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (business_id)
);

CREATE TRIGGER audit_insert AFTER INSERT ON business_settings REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();
CREATE TRIGGER audit_update AFTER UPDATE ON business_settings REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();
CREATE TRIGGER audit_delete AFTER DELETE ON business_settings REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();

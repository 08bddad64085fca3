-- Sign-in and impersonation hardening (docs/security.md).
--
-- 1. login_failures counts per account, per client address (IPv6 by its /64) and per pair of
--    both (src/services/sessions.ts). A pair's last attempt is what its progressive delay counts
--    from; the older rows (per bare email) stop being read and are swept with their window.
ALTER TABLE login_failures ADD COLUMN last_attempt_at timestamptz;
UPDATE login_failures SET last_attempt_at = window_started_at;
ALTER TABLE login_failures ALTER COLUMN last_attempt_at SET NOT NULL;
ALTER TABLE login_failures ALTER COLUMN last_attempt_at SET DEFAULT now();

-- 2. An operator acting as a user of a business, from start to stop: a row of the business, so
--    its start (INSERT) and stop (UPDATE of ended_at) are in the business's audit log, written by
--    the same trigger as every other change, with the operator as actor and impersonated_by.
CREATE TABLE impersonations (
  business_id    uuid NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
  id             uuid NOT NULL DEFAULT gen_random_uuid(),
  operator_id    uuid NOT NULL REFERENCES operators (id) ON DELETE CASCADE,
  operator_email text NOT NULL,
  user_id        uuid NOT NULL,
  started_at     timestamptz NOT NULL,
  ended_at       timestamptz,
  PRIMARY KEY (business_id, id),
  FOREIGN KEY (business_id, user_id) REFERENCES users (business_id, id) ON DELETE CASCADE
);
-- the session an impersonation runs in names it, so a stop finds the row it ends
ALTER TABLE sessions ADD COLUMN impersonation_id uuid;

CREATE TRIGGER audit_insert AFTER INSERT ON impersonations REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();
CREATE TRIGGER audit_update AFTER UPDATE ON impersonations REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();

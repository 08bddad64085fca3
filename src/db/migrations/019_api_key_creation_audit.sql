-- A key created over HTTP (POST /api/keys, a signed-in admin or an operator acting as one) is in
-- the audit log, with its creator as actor and the operator in impersonated_by, like its
-- revocation (migration 015); its hash is dropped from the image like every secret column. The
-- keys made on the command line (`lending businesses create`, `lending keys create`) stay out, as
-- before: they are the installation's own doing, and a business's log does not open with them.
CREATE TRIGGER audit_insert AFTER INSERT ON api_keys REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT
  WHEN (current_setting('app.actor', true) LIKE 'user:%')
  EXECUTE FUNCTION audit_rows();

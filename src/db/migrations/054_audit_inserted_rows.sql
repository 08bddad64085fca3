-- The audit of the two tables every payment appends to (payments, ledger): one statement's rows
-- inserted, written to the log by a trigger of their own (docs/payments.md, "Importing payments";
-- docs/architecture.md, "The audit list at any size").
--
-- audit_rows (migration 006) serves every audited table and every action: it turns each row into
-- jsonb, takes the secret columns out (token_hash, storage_key), then reads business, id and
-- branch back out of the jsonb. These two tables have no secret column and hold business_id, id
-- and branch_id as columns, so their inserted rows go to the log straight from the transition
-- table: the same audit rows (new_data is the row as jsonb, as before), with a third less work,
-- which a payment import's batch (hundreds of payments and entries in one statement) feels.
-- Their updates and deletes keep audit_rows (the ledger refuses both: append-only).
CREATE FUNCTION audit_inserted_rows() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  who text := coalesce(nullif(current_setting('app.actor', true), ''), 'db:' || current_user);
  impersonator text := nullif(current_setting('app.impersonated_by', true), '');
BEGIN
  INSERT INTO audit_log (business_id, table_name, action, record_id, old_data, new_data, branch_id, actor, impersonated_by)
  SELECT r.business_id, TG_TABLE_NAME, 'INSERT', r.id, NULL, to_jsonb(r), r.branch_id, who, impersonator
    FROM new_rows r;
  RETURN NULL;
END $$;

DROP TRIGGER audit_insert ON payments;
CREATE TRIGGER audit_insert AFTER INSERT ON payments REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_inserted_rows();
DROP TRIGGER audit_insert ON ledger;
CREATE TRIGGER audit_insert AFTER INSERT ON ledger REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_inserted_rows();

-- Guarantors and co-borrowers of a credit (docs/applications.md "Guarantors"): clients of the same
-- business who back a credit; never its borrower, at most once per credit.
CREATE TABLE credit_guarantors (
  business_id uuid NOT NULL REFERENCES businesses (id),
  id          uuid NOT NULL DEFAULT gen_random_uuid(),
  credit_id   uuid NOT NULL,
  client_id   uuid NOT NULL,
  role        text NOT NULL CHECK (role IN ('guarantor', 'co_borrower')),
  created_by  text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (business_id, id),
  FOREIGN KEY (business_id, credit_id) REFERENCES credits (business_id, id),
  FOREIGN KEY (business_id, client_id) REFERENCES clients (business_id, id),
  UNIQUE (business_id, credit_id, client_id)
);

-- the credits a client backs (the client read's guarantees)
CREATE INDEX credit_guarantors_client ON credit_guarantors (business_id, client_id);

CREATE TRIGGER audit_insert AFTER INSERT ON credit_guarantors REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();
CREATE TRIGGER audit_update AFTER UPDATE ON credit_guarantors REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();
CREATE TRIGGER audit_delete AFTER DELETE ON credit_guarantors REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();

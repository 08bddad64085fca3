-- Credit applications and their approval (docs/applications.md): an employee submits, someone else
-- decides, and an approved application is disbursed once into a credit.

-- A plan's credit policy: {max_central_bank_situation?, max_total_debt?, require_tax_active?};
-- each rule becomes one check of an application submitted on the plan.
ALTER TABLE credit_configs ADD COLUMN policy jsonb NOT NULL DEFAULT '{}';

CREATE TABLE applications (
  business_id     uuid NOT NULL REFERENCES businesses (id),
  id              uuid NOT NULL DEFAULT gen_random_uuid(),
  client_id       uuid NOT NULL,
  credit_config_id uuid NOT NULL,
  amount          numeric NOT NULL CHECK (amount > 0),
  branch_id       uuid,
  start_date      date,
  -- [{client_id, role}]: added to the credit when it is disbursed
  guarantors      jsonb NOT NULL DEFAULT '[]',
  note            text,
  status          text NOT NULL DEFAULT 'submitted'
                  CHECK (status IN ('submitted', 'approved', 'rejected', 'withdrawn', 'disbursed')),
  -- [{rule, outcome, detail}] as judged when it was submitted
  checks          jsonb NOT NULL DEFAULT '[]',
  submitted_by    text NOT NULL,
  decided_by      text,
  decision_note   text,
  credit_id       uuid,
  -- how the money was handed over (cash, transfer, …) and the transfer's reference
  disbursement_method text,
  disbursement_reference text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  decided_at      timestamptz,
  disbursed_at    timestamptz,
  PRIMARY KEY (business_id, id),
  FOREIGN KEY (business_id, client_id) REFERENCES clients (business_id, id),
  FOREIGN KEY (business_id, credit_config_id) REFERENCES credit_configs (business_id, id),
  FOREIGN KEY (business_id, branch_id) REFERENCES branches (business_id, id),
  FOREIGN KEY (business_id, credit_id) REFERENCES credits (business_id, id),
  -- one credit per application
  UNIQUE (business_id, credit_id)
);

CREATE INDEX applications_list ON applications (business_id, created_at DESC, id DESC);
CREATE INDEX applications_status ON applications (business_id, status, created_at DESC, id DESC);

CREATE TRIGGER audit_insert AFTER INSERT ON applications REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();
CREATE TRIGGER audit_update AFTER UPDATE ON applications REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();
CREATE TRIGGER audit_delete AFTER DELETE ON applications REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();

-- The credit an application was disbursed into names it; at most one credit per application.
ALTER TABLE credits ADD COLUMN application_id uuid;
ALTER TABLE credits ADD CONSTRAINT credits_application_fkey
  FOREIGN KEY (business_id, application_id) REFERENCES applications (business_id, id);
ALTER TABLE credits ADD CONSTRAINT credits_business_id_application_id_key UNIQUE (business_id, application_id);

-- Charges and waivers (docs/domain.md, "Fees and charges"). A `charge` entry (origin `fee`) posts a
-- collection charge on an installment, VAT included (vat_part: the VAT in it). A `waiver` entry
-- (origin `waiver`) takes posted and unpaid punitory or charges off an installment: negative, its
-- whole amount in punitory_part (a punitory waiver) or in charge_part (a charge waiver); never cash,
-- so no payment. A payment slice says in charge_part what it paid of the installment's charges
-- (their VAT included), as punitory_part says it of punitory.
ALTER TABLE ledger ADD COLUMN charge_part numeric(14, 2) NOT NULL DEFAULT 0;

ALTER TABLE ledger
  DROP CONSTRAINT ledger_type_check,
  DROP CONSTRAINT ledger_origin,
  DROP CONSTRAINT ledger_positive,
  DROP CONSTRAINT ledger_parts,
  ADD CONSTRAINT ledger_type_check CHECK (type IN ('installment', 'punitory', 'payment', 'charge', 'waiver')),
  ADD CONSTRAINT ledger_origin CHECK (
    (type = 'installment' AND origin = 'schedule') OR
    (type = 'punitory' AND origin IN ('accrual', 'correction')) OR
    (type = 'payment' AND origin IN ('payment', 'reversal', 'correction', 'rebate', 'refinance')) OR
    (type = 'charge' AND origin = 'fee') OR
    (type = 'waiver' AND origin = 'waiver')),
  ADD CONSTRAINT ledger_positive CHECK (
    amount > 0 AND origin <> 'waiver' OR
    amount < 0 AND origin = 'waiver' OR
    origin IN ('accrual', 'correction', 'reversal', 'rebate')),
  ADD CONSTRAINT ledger_parts CHECK (
    type = 'payment' AND origin IN ('reversal', 'correction') OR
    type = 'payment' AND punitory_part >= 0 AND charge_part >= 0 AND vat_part >= 0 AND interest_part >= 0
      AND fees_part >= 0 AND insurance_part >= 0
      AND punitory_part + charge_part + vat_part + interest_part + fees_part + insurance_part <= amount OR
    type = 'payment' AND origin = 'rebate' AND amount < 0 AND punitory_part <= 0 AND charge_part = 0
      AND vat_part <= 0 AND interest_part <= 0 AND fees_part <= 0 AND insurance_part <= 0
      AND punitory_part + vat_part + interest_part + fees_part + insurance_part >= amount OR
    type = 'punitory' AND interest_part = 0 AND punitory_part = 0 AND charge_part = 0
      AND fees_part = 0 AND insurance_part = 0 OR
    type = 'installment' AND punitory_part = 0 AND charge_part = 0 AND vat_part = 0 AND interest_part = 0
      AND fees_part = 0 AND insurance_part = 0 OR
    type = 'charge' AND punitory_part = 0 AND charge_part = 0 AND interest_part = 0 AND vat_part >= 0
      AND vat_part < amount AND fees_part = 0 AND insurance_part = 0 OR
    type = 'waiver' AND vat_part = 0 AND interest_part = 0 AND fees_part = 0 AND insurance_part = 0
      AND (punitory_part = amount AND charge_part = 0 OR charge_part = amount AND punitory_part = 0));

-- A waiver's why and who: one row per waiver entry (the same id), what the waiver.created event
-- and the audit show.
CREATE TABLE waivers (
  business_id    uuid NOT NULL REFERENCES businesses (id),
  id             uuid NOT NULL,
  credit_id      uuid NOT NULL,
  installment_id uuid NOT NULL,
  kind           text NOT NULL CHECK (kind IN ('punitory', 'charge')),
  amount         numeric(14, 2) NOT NULL CHECK (amount > 0),
  reason         text NOT NULL CHECK (length(reason) BETWEEN 1 AND 2000),
  created_by     text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (business_id, id),
  FOREIGN KEY (business_id, id) REFERENCES ledger (business_id, id),
  FOREIGN KEY (business_id, credit_id) REFERENCES credits (business_id, id),
  FOREIGN KEY (business_id, installment_id) REFERENCES installments (business_id, id)
);
CREATE INDEX waivers_credit ON waivers (business_id, credit_id, created_at);

CREATE TRIGGER audit_insert AFTER INSERT ON waivers REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();
CREATE TRIGGER audit_update AFTER UPDATE ON waivers REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();
CREATE TRIGGER audit_delete AFTER DELETE ON waivers REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();

-- a waiver's row is part of its ledger entry: append-only like the ledger
CREATE TRIGGER append_only BEFORE UPDATE OR DELETE ON waivers FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER append_only_truncate BEFORE TRUNCATE ON waivers FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();

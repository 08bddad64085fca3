-- Collection charges are posted as punitory is (docs/domain.md, "Fees and charges"): what an
-- installment owes is computed from its payment history and the difference from what is posted is
-- written, dated the charge day. A payment recorded later but dated before that day (or a reversal)
-- changes the history, so a charge may have to be taken back: a `charge` entry of origin
-- `correction`, negative, its vat_part the (negative) VAT in it. Nothing posted is edited.
ALTER TABLE ledger
  DROP CONSTRAINT ledger_origin,
  DROP CONSTRAINT ledger_parts,
  ADD CONSTRAINT ledger_origin CHECK (
    (type = 'installment' AND origin = 'schedule') OR
    (type = 'punitory' AND origin IN ('accrual', 'correction')) OR
    (type = 'payment' AND origin IN ('payment', 'reversal', 'correction', 'rebate', 'refinance')) OR
    (type = 'charge' AND origin IN ('fee', 'correction')) OR
    (type = 'waiver' AND origin = 'waiver')),
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
    type = 'charge' AND origin = 'fee' AND punitory_part = 0 AND charge_part = 0 AND interest_part = 0
      AND vat_part >= 0 AND vat_part < amount AND fees_part = 0 AND insurance_part = 0 OR
    type = 'charge' AND origin = 'correction' AND amount < 0 AND punitory_part = 0 AND charge_part = 0
      AND interest_part = 0 AND vat_part <= 0 AND vat_part > amount AND fees_part = 0 AND insurance_part = 0 OR
    type = 'waiver' AND vat_part = 0 AND interest_part = 0 AND fees_part = 0 AND insurance_part = 0
      AND (punitory_part = amount AND charge_part = 0 OR charge_part = amount AND punitory_part = 0));

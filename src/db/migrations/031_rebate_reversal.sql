-- A rebate belongs to the payment that earned it (docs/domain.md, "Early payoff"): when a reversal
-- or a backdated payment leaves that payment short of the payoff of its date, its rebate is
-- reversed by new rebate entries of the opposite sign (append-only: nothing written is edited).
-- Such an entry is negative in its amount and in each of its parts.
ALTER TABLE ledger
  DROP CONSTRAINT ledger_positive,
  DROP CONSTRAINT ledger_parts,
  ADD CONSTRAINT ledger_positive CHECK (amount > 0 OR origin IN ('accrual', 'correction', 'reversal', 'rebate')),
  ADD CONSTRAINT ledger_parts CHECK (
    type = 'payment' AND origin IN ('reversal', 'correction') OR
    type = 'payment' AND punitory_part >= 0 AND vat_part >= 0 AND interest_part >= 0
      AND punitory_part + vat_part + interest_part <= amount OR
    type = 'payment' AND origin = 'rebate' AND amount < 0 AND punitory_part <= 0 AND vat_part <= 0
      AND interest_part <= 0 AND punitory_part + vat_part + interest_part >= amount OR
    type = 'punitory' AND interest_part = 0 AND punitory_part = 0 OR
    type = 'installment' AND punitory_part = 0 AND vat_part = 0 AND interest_part = 0);

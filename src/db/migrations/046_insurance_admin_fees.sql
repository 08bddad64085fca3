-- The insurance and the admin fee of a plan (docs/domain.md, "Fees and charges"): each installment
-- carries its insurance (rate a month × the principal outstanding at the start of its period) and
-- its admin fee, each with its VAT; the installment's `vat` is the VAT of its interest, insurance
-- and fees together, and amount = principal + interest + insurance + fees + vat. A payment slice
-- says what it paid of the fees and of the insurance, their VAT included (like punitory_part);
-- vat_part stays the interest's VAT. Every installment and entry written before has none (0), so
-- no existing credit's figures change.
ALTER TABLE installments
  ADD COLUMN insurance numeric(14, 2) NOT NULL DEFAULT 0,
  ADD COLUMN insurance_vat numeric(14, 2) NOT NULL DEFAULT 0,
  ADD COLUMN fees numeric(14, 2) NOT NULL DEFAULT 0,
  ADD COLUMN fees_vat numeric(14, 2) NOT NULL DEFAULT 0,
  DROP CONSTRAINT installments_parts,
  ADD CONSTRAINT installments_parts CHECK (
    principal >= 0 AND interest >= 0 AND vat >= 0 AND insurance >= 0 AND fees >= 0
    AND insurance_vat >= 0 AND fees_vat >= 0 AND insurance_vat + fees_vat <= vat
    AND principal + interest + insurance + fees + vat = amount);

ALTER TABLE ledger
  ADD COLUMN fees_part numeric(14, 2) NOT NULL DEFAULT 0,
  ADD COLUMN insurance_part numeric(14, 2) NOT NULL DEFAULT 0,
  DROP CONSTRAINT ledger_parts,
  ADD CONSTRAINT ledger_parts CHECK (
    type = 'payment' AND origin IN ('reversal', 'correction') OR
    type = 'payment' AND punitory_part >= 0 AND vat_part >= 0 AND interest_part >= 0
      AND fees_part >= 0 AND insurance_part >= 0
      AND punitory_part + vat_part + interest_part + fees_part + insurance_part <= amount OR
    type = 'payment' AND origin = 'rebate' AND amount < 0 AND punitory_part <= 0 AND vat_part <= 0
      AND interest_part <= 0 AND fees_part <= 0 AND insurance_part <= 0
      AND punitory_part + vat_part + interest_part + fees_part + insurance_part >= amount OR
    type = 'punitory' AND interest_part = 0 AND punitory_part = 0 AND fees_part = 0 AND insurance_part = 0 OR
    type = 'installment' AND punitory_part = 0 AND vat_part = 0 AND interest_part = 0
      AND fees_part = 0 AND insurance_part = 0);

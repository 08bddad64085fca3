-- Fees of a plan, first the origination fee (docs/domain.md, "Fees and charges"). A plan's `fees`
-- is a JSON array of {type, rate | amount, vat, financed}; a credit keeps the plan's fees as they
-- were when it was granted (`fees`), the origination fee charged with its VAT, and whether it was
-- financed (added to the principal) or deducted from the cash handed over. `disbursed`, the cash
-- handed over, follows from them; every credit granted before has no fee: disbursed = amount.
ALTER TABLE credit_configs
  ADD COLUMN fees jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(fees) = 'array');

ALTER TABLE credits
  ADD COLUMN fees jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(fees) = 'array'),
  ADD COLUMN origination_fee numeric(14, 2) NOT NULL DEFAULT 0 CHECK (origination_fee >= 0),
  ADD COLUMN origination_financed boolean NOT NULL DEFAULT false,
  ADD COLUMN disbursed numeric(14, 2) GENERATED ALWAYS AS (
    CASE WHEN origination_financed THEN amount ELSE amount - origination_fee END) STORED,
  ADD CONSTRAINT credits_disbursed CHECK (origination_financed OR origination_fee < amount);

-- Lending depth (docs/domain.md, "The ledger"): why each ledger entry exists, payments as records,
-- installment parts, interest methods and VAT, and the business-day tolerance.
--
-- 1. ledger.origin says why an entry exists; `type` keeps the contract's three values:
--      installment  schedule
--      punitory     accrual (posted), correction (a negative difference after history changed)
--      payment      payment (cash), reversal (cancels a reversed payment's slices), correction
--                   (a later payment allocated again), rebate (interest not owed at an early
--                   payoff), refinance (the settlement of a refinanced credit: no cash)
--    A payment-type entry names its payment (payment_id); reversals and corrections may be
--    negative. vat_part and interest_part split a payment slice like punitory_part does
--    (principal = amount − punitory_part − vat_part − interest_part); on a punitory entry vat_part
--    is the VAT in it.
-- 2. payments: one row per payment request (the group of its slices), so that a reversal or a
--    payment dated before others can allocate every later payment again from what was paid.
-- 3. installments.principal/interest/vat: the parts of its amount (flat before this: all of it
--    principal when the credit had no interest, else the interest spread like the amount).
--    installments.tolerance_days: days from a due date that is not a business day to the next one.
-- 4. plans and the terms snapshotted on credits: amortization, vat_rate, business_day_rule.

-- Old rows get their origin below; the constant default costs no rewrite of the table.
ALTER TABLE ledger
  ADD COLUMN origin text NOT NULL DEFAULT 'schedule',
  ADD COLUMN vat_part numeric(14, 2) NOT NULL DEFAULT 0,
  ADD COLUMN interest_part numeric(14, 2) NOT NULL DEFAULT 0;

-- a migration rewriting a derived column is not a business change: no audit rows, and the
-- append-only rule is lifted for this statement only
ALTER TABLE ledger DISABLE TRIGGER append_only;
ALTER TABLE ledger DISABLE TRIGGER audit_update;
UPDATE ledger l SET origin = CASE
    WHEN l.type = 'punitory' AND l.amount < 0 THEN 'correction'
    WHEN l.type = 'punitory' THEN 'accrual'
    -- a refinanced credit's last payment settled it (no payment is accepted after)
    WHEN c.status = 'refinanced' AND l.payment_id IS NOT DISTINCT FROM (
      SELECT l2.payment_id FROM ledger l2
       WHERE l2.business_id = l.business_id AND l2.credit_id = l.credit_id AND l2.type = 'payment'
       ORDER BY l2.created_at DESC, l2.id DESC LIMIT 1) THEN 'refinance'
    ELSE 'payment' END
  FROM credits c
 WHERE l.type <> 'installment' AND c.business_id = l.business_id AND c.id = l.credit_id;
-- a payment slice written without a payment id (none by the service; a hand-made row) becomes a
-- payment of its own
UPDATE ledger SET payment_id = gen_random_uuid() WHERE type = 'payment' AND payment_id IS NULL;
ALTER TABLE ledger ENABLE TRIGGER audit_update;
ALTER TABLE ledger ENABLE TRIGGER append_only;
ALTER TABLE ledger ALTER COLUMN origin DROP DEFAULT;

ALTER TABLE ledger
  DROP CONSTRAINT ledger_check,
  DROP CONSTRAINT ledger_check1,
  DROP CONSTRAINT ledger_check2,
  ADD CONSTRAINT ledger_origin CHECK (
    (type = 'installment' AND origin = 'schedule') OR
    (type = 'punitory' AND origin IN ('accrual', 'correction')) OR
    (type = 'payment' AND origin IN ('payment', 'reversal', 'correction', 'rebate', 'refinance'))),
  ADD CONSTRAINT ledger_positive CHECK (amount > 0 OR origin IN ('accrual', 'correction', 'reversal')),
  ADD CONSTRAINT ledger_payment_id CHECK ((type = 'payment') = (payment_id IS NOT NULL)),
  ADD CONSTRAINT ledger_parts CHECK (
    type = 'payment' AND origin IN ('reversal', 'correction') OR
    type = 'payment' AND punitory_part >= 0 AND vat_part >= 0 AND interest_part >= 0
      AND punitory_part + vat_part + interest_part <= amount OR
    type = 'punitory' AND interest_part = 0 AND punitory_part = 0 OR
    type = 'installment' AND punitory_part = 0 AND vat_part = 0 AND interest_part = 0);

CREATE TABLE payments (
  business_id     uuid NOT NULL,
  id              uuid NOT NULL DEFAULT gen_random_uuid(),
  credit_id       uuid NOT NULL,
  amount          numeric(14, 2) NOT NULL CHECK (amount > 0),
  paid_on         date NOT NULL,
  branch_id       uuid,
  created_by      text NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  reversed_at     timestamptz,
  reversal_reason text,
  reversed_by     text,
  PRIMARY KEY (business_id, id),
  FOREIGN KEY (business_id, credit_id) REFERENCES credits (business_id, id),
  FOREIGN KEY (business_id, branch_id) REFERENCES branches (business_id, id),
  CHECK ((reversed_at IS NULL) = (reversal_reason IS NULL))
);
CREATE INDEX payments_credit ON payments (business_id, credit_id, paid_on, created_at);

-- every cash payment already in the ledger (refinance settlements are not payments)
INSERT INTO payments (business_id, id, credit_id, amount, paid_on, branch_id, created_by, created_at)
SELECT business_id, payment_id, credit_id, sum(amount), min(effective_date), min(branch_id::text)::uuid,
       min(created_by), min(created_at)
  FROM ledger
 WHERE type = 'payment' AND origin = 'payment'
 GROUP BY business_id, payment_id, credit_id;

DO $$
BEGIN
  EXECUTE 'CREATE TRIGGER audit_insert AFTER INSERT ON payments REFERENCING NEW TABLE AS new_rows '
          'FOR EACH STATEMENT EXECUTE FUNCTION audit_rows()';
  EXECUTE 'CREATE TRIGGER audit_update AFTER UPDATE ON payments REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows '
          'FOR EACH STATEMENT EXECUTE FUNCTION audit_rows()';
  EXECUTE 'CREATE TRIGGER audit_delete AFTER DELETE ON payments REFERENCING OLD TABLE AS old_rows '
          'FOR EACH STATEMENT EXECUTE FUNCTION audit_rows()';
END $$;

-- ---- 3. installment parts
ALTER TABLE installments
  ADD COLUMN principal numeric(14, 2),
  ADD COLUMN interest numeric(14, 2),
  ADD COLUMN vat numeric(14, 2) NOT NULL DEFAULT 0,
  ADD COLUMN tolerance_days integer NOT NULL DEFAULT 0 CHECK (tolerance_days >= 0);
ALTER TABLE installments DISABLE TRIGGER audit_update;
-- flat credits so far: the interest (total − amount) spread like the amount, the remainder on the last
UPDATE installments i SET
    interest = CASE WHEN i.number < c.installments_count THEN round((c.total - c.amount) / c.installments_count, 2)
                    ELSE (c.total - c.amount) - round((c.total - c.amount) / c.installments_count, 2) * (c.installments_count - 1) END,
    principal = i.amount - CASE WHEN i.number < c.installments_count THEN round((c.total - c.amount) / c.installments_count, 2)
                    ELSE (c.total - c.amount) - round((c.total - c.amount) / c.installments_count, 2) * (c.installments_count - 1) END
  FROM credits c
 WHERE c.business_id = i.business_id AND c.id = i.credit_id;
ALTER TABLE installments ENABLE TRIGGER audit_update;
ALTER TABLE installments
  ALTER COLUMN principal SET NOT NULL,
  ALTER COLUMN interest SET NOT NULL,
  ALTER COLUMN vat DROP DEFAULT,
  ADD CONSTRAINT installments_parts CHECK (principal >= 0 AND interest >= 0 AND vat >= 0 AND principal + interest + vat = amount);

-- the interest inside the payment slices written before: a payment pays an installment's interest
-- before its principal (no VAT before this migration), so the interest paid through a slice is
-- the part of the installment's interest its cumulative payments reach. Without it a credit's
-- next payment would replay its old payments and write a correction for every old slice.
ALTER TABLE ledger DISABLE TRIGGER append_only;
ALTER TABLE ledger DISABLE TRIGGER audit_update;
UPDATE ledger l SET interest_part = x.ip
  FROM (SELECT s.business_id, s.id, least(s.cum, s.interest) - least(s.cum - s.principal, s.interest) AS ip
          FROM (SELECT l.business_id, l.id, l.amount - l.punitory_part AS principal, i.interest,
                       sum(l.amount - l.punitory_part) OVER (PARTITION BY l.business_id, l.installment_id
                                                            ORDER BY l.effective_date, l.created_at, l.id) AS cum
                  FROM ledger l JOIN installments i ON i.business_id = l.business_id AND i.id = l.installment_id
                 WHERE l.type = 'payment' AND l.origin IN ('payment', 'refinance')) s) x
 WHERE l.business_id = x.business_id AND l.id = x.id AND x.ip <> 0;
ALTER TABLE ledger ENABLE TRIGGER audit_update;
ALTER TABLE ledger ENABLE TRIGGER append_only;

-- ---- 4. plans and credits
ALTER TABLE credit_configs
  ADD COLUMN amortization text NOT NULL DEFAULT 'flat' CHECK (amortization IN ('flat', 'french')),
  ADD COLUMN vat_rate numeric(12, 6) NOT NULL DEFAULT 0 CHECK (vat_rate >= 0),
  ADD COLUMN business_day_rule text NOT NULL DEFAULT 'none' CHECK (business_day_rule IN ('none', 'next'));
ALTER TABLE credits
  ADD COLUMN amortization text NOT NULL DEFAULT 'flat' CHECK (amortization IN ('flat', 'french')),
  ADD COLUMN vat_rate numeric(12, 6) NOT NULL DEFAULT 0 CHECK (vat_rate >= 0),
  ADD COLUMN business_day_rule text NOT NULL DEFAULT 'none' CHECK (business_day_rule IN ('none', 'next'));

-- ---- the punitory function: a day's payments are judged by their net sum
CREATE OR REPLACE FUNCTION punitory_cumulative(
  amount numeric, due_date date, as_of date, stop_date date,
  daily_rate numeric, mode text, grace_days integer, max_days integer, cap_pct numeric,
  paid_on date[], principal numeric[], punitory numeric[]
) RETURNS numeric LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  storable_max constant numeric := 999999999999.99;
  n integer := 0;            -- payments made on or before as_of (a prefix: they are in date order)
  i integer := 1;
  k integer := 1;
  last_k integer;
  end_k integer;
  days integer;
  fully_paid date;
  principal_paid numeric := 0;
  punitory_paid numeric := 0;
  accrued numeric := 0;      -- unrounded
  overflow boolean := false; -- accrued reached the storable maximum (it never decreases)
  base numeric;
  growth numeric := round(1 + daily_rate, 40);
  result numeric;
BEGIN
  IF as_of <= due_date OR amount <= 0 THEN RETURN 0; END IF;

  -- Grace is a tolerance on how late it got: until as_of, or until the amount was fully paid.
  FOR j IN 1 .. coalesce(array_length(paid_on, 1), 0) LOOP
    EXIT WHEN paid_on[j] > as_of;
    IF j > 1 AND paid_on[j] < paid_on[j - 1] THEN
      RAISE EXCEPTION 'punitory_cumulative: payments must be in order of paid_on';
    END IF;
    n := j;
    principal_paid := principal_paid + principal[j];
    -- judged on a day's net sum: a reversal or correction may follow a slice on the same day
    IF fully_paid IS NULL AND principal_paid >= amount
       AND (j = array_length(paid_on, 1) OR paid_on[j + 1] IS DISTINCT FROM paid_on[j]) THEN
      fully_paid := paid_on[j];
    END IF;
  END LOOP;
  IF coalesce(fully_paid, as_of) - due_date <= grace_days THEN RETURN 0; END IF;

  last_k := as_of - due_date;
  IF max_days > 0 THEN last_k := least(last_k, max_days); END IF;
  IF stop_date IS NOT NULL THEN last_k := least(last_k, stop_date - due_date); END IF;
  IF last_k < 1 THEN RETURN 0; END IF;

  -- paid on or before the due date: already counts on day 1
  principal_paid := 0;
  WHILE i <= n AND paid_on[i] <= due_date LOOP
    principal_paid := principal_paid + principal[i];
    punitory_paid := punitory_paid + punitory[i];
    i := i + 1;
  END LOOP;

  WHILE k <= last_k AND NOT overflow LOOP
    -- this stretch runs until the day the next payment starts to count (its day + 1), exclusive
    end_k := CASE WHEN i <= n THEN least(last_k, paid_on[i] - due_date) ELSE last_k END;
    days := end_k - k + 1;
    IF principal_paid < amount THEN
      IF mode = 'full_amount' THEN
        accrued := accrued + daily_rate * amount * days;
      ELSIF mode = 'simple_outstanding' THEN
        accrued := accrued + daily_rate * (amount - principal_paid) * days;
      ELSE
        -- each day adds rate × base and the base grows by it: Σ = base × ((1 + rate)^days − 1)
        base := amount - principal_paid + accrued - punitory_paid;
        IF base > 0 THEN
          -- past 10^13 it adds more than the maximum whatever the base (< 2 × 10^12 here): not
          -- computed; judged in floating point with a factor of 10 to spare, like the TypeScript
          IF log(base::float8) + days * log(growth::float8) > 13 THEN
            overflow := true;
          ELSE
            accrued := accrued + round(base * (power(growth, days::numeric) - 1), 40);
          END IF;
        END IF;
      END IF;
      IF accrued >= storable_max THEN overflow := true; END IF;
    END IF;
    k := end_k + 1;
    WHILE i <= n AND paid_on[i] <= due_date + (k - 1) LOOP
      principal_paid := principal_paid + principal[i];
      punitory_paid := punitory_paid + punitory[i];
      i := i + 1;
    END LOOP;
  END LOOP;

  -- half away from zero, like round2; past the maximum the exact figure is not known (nor needed)
  result := CASE WHEN overflow THEN storable_max ELSE least(round(accrued, 2), storable_max) END;
  -- multiplying by 0.01 (not dividing by 100) keeps the cap exact before it is rounded
  IF cap_pct > 0 THEN result := least(result, round(cap_pct * 0.01 * amount, 2)); END IF;
  RETURN greatest(result, 0);
END $$;

-- The punitory owed with its VAT, from the net figure (src/services/ledgerState.ts withVat): rounded
-- half away from zero, never past the storable maximum.
CREATE FUNCTION punitory_with_vat(net numeric, vat_rate numeric) RETURNS numeric
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN CASE WHEN vat_rate = 0 OR net = 0 THEN net ELSE least(round(net * (1 + vat_rate), 2), 999999999999.99) END;

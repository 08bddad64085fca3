-- Punitory posted at events and at each month's close, never daily (docs/domain.md, "Punitory": when it
-- is posted"). Nothing already in a book changes: every figure is the cumulative punitory as of
-- the day read, whatever the dates it was posted on, so a ledger with one entry a day (what the
-- daily run used to write) and one with one a month show the same amounts.
--
-- 1. punitory_cumulative never exceeds the storable maximum (numeric(14,2): 999,999,999,999.99).
--    An amount that cannot be stored stops growing there instead of failing a run, a payment or a
--    report; a compound stretch that would pass 10^13 is not computed at all (a rate of 1,000 a day
--    over years is a number of 100,000 digits, beyond numeric's range). The same rule as
--    src/domain/punitory.ts cumulativePunitory, to the cent (test/domain/punitory-sql.test.ts).
-- 2. The daily run looks for the credits its month close has not reached yet from the unpaid
--    installments due before the close: the partial index of unpaid installments carries the
--    credit, so that scan reads the index alone.

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
    IF fully_paid IS NULL AND principal_paid >= amount THEN fully_paid := paid_on[j]; END IF;
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

DROP INDEX installments_unpaid_due;
CREATE INDEX installments_unpaid_due ON installments (business_id, due_date, credit_id) WHERE status <> 'paid';

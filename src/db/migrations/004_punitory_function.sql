-- The cumulative punitory of one installment as of a date, in SQL: the same algorithm as
-- src/domain/punitory.ts cumulativePunitory (docs/domain.md, "Punitory"), so reads computed in SQL
-- (the portfolio summary, filters on money) add the punitory accrued since the last posting
-- exactly as the TypeScript reads do. test/domain/punitory-sql.test.ts checks both agree to the
-- cent on random inputs.
--
-- The payments are this installment's payment slices as three parallel arrays (NULL or empty
-- when none), in order of paid_on (ties in the order they were made): the day, the part applied
-- to the amount, the part applied to punitory. Day k is due_date + k; a payment counts from the
-- day after it is made. Between two payments the base is constant (simple_outstanding,
-- full_amount) or grows by (1 + rate) a day (compound), so each stretch is one closed form.
--
-- numeric arithmetic throughout: the simple modes are exact; compound raises 1 + rate, taken at
-- 40 decimals, to the number of days (power() with an integer exponent keeps the base's scale)
-- and keeps each stretch to 40 decimals, far below a cent for any storable amount.
CREATE FUNCTION punitory_cumulative(
  amount numeric, due_date date, as_of date, stop_date date,
  daily_rate numeric, mode text, grace_days integer, max_days integer, cap_pct numeric,
  paid_on date[], principal numeric[], punitory numeric[]
) RETURNS numeric LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
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

  WHILE k <= last_k LOOP
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
        IF base > 0 THEN accrued := accrued + round(base * (power(growth, days::numeric) - 1), 40); END IF;
      END IF;
    END IF;
    k := end_k + 1;
    WHILE i <= n AND paid_on[i] <= due_date + (k - 1) LOOP
      principal_paid := principal_paid + principal[i];
      punitory_paid := punitory_paid + punitory[i];
      i := i + 1;
    END LOOP;
  END LOOP;

  result := round(accrued, 2); -- half away from zero, like round2
  -- multiplying by 0.01 (not dividing by 100) keeps the cap exact before it is rounded
  IF cap_pct > 0 THEN result := least(result, round(cap_pct * 0.01 * amount, 2)); END IF;
  RETURN greatest(result, 0);
END $$;

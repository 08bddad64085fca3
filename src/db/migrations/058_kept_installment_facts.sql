-- What the portfolio summary as of today reads of an installment, kept in its installment_balances
-- row (docs/reports.md, "Summary as of today"): its due date, amount and tolerance, and its
-- payment entries (date, what each paid of the amount, what each paid of the punitory). The
-- summary then reads one kept table for the installments it works out, instead of a range of
-- installments, a kept row by primary key and the ledger's payments for each (migrations 052, 057).
-- The rules are unchanged: the punitory is still punitory_cumulative over these payments, the
-- collection charge still compares what they paid before its day with the amount.

-- as in 052: no ledger write (nor tolerance change) may commit between the backfill and the
-- triggers that keep these columns after it
LOCK TABLE ledger, installments IN SHARE ROW EXCLUSIVE MODE;

ALTER TABLE installment_balances
  ADD COLUMN due_date       date,
  ADD COLUMN amount         numeric,
  ADD COLUMN tolerance_days integer,
  -- the installment's payment entries (reversals and corrections included) in date order: their
  -- effective dates, amount − punitory_part − charge_part, and punitory_part (with its VAT)
  ADD COLUMN paid_on        date[] NOT NULL DEFAULT '{}',
  ADD COLUMN paid_principal numeric[] NOT NULL DEFAULT '{}',
  ADD COLUMN paid_punitory  numeric[] NOT NULL DEFAULT '{}';

UPDATE installment_balances b
   SET due_date = i.due_date, amount = i.amount, tolerance_days = i.tolerance_days
  FROM installments i
 WHERE i.business_id = b.business_id AND i.id = b.installment_id;

UPDATE installment_balances b
   SET paid_on = p.paid_on, paid_principal = p.paid_principal, paid_punitory = p.paid_punitory
  FROM (SELECT l.business_id, l.installment_id,
               array_agg(l.effective_date ORDER BY l.effective_date, l.created_at) AS paid_on,
               array_agg(l.amount - l.punitory_part - l.charge_part ORDER BY l.effective_date, l.created_at) AS paid_principal,
               array_agg(l.punitory_part ORDER BY l.effective_date, l.created_at) AS paid_punitory
          FROM ledger l
         WHERE l.type = 'payment'
         GROUP BY l.business_id, l.installment_id) p
 WHERE p.business_id = b.business_id AND p.installment_id = b.installment_id;

ALTER TABLE installment_balances
  ALTER COLUMN due_date SET NOT NULL,
  ALTER COLUMN amount SET NOT NULL,
  ALTER COLUMN tolerance_days SET NOT NULL;

-- the summary's range per credit: its installments due from open_from to the day read
CREATE INDEX installment_balances_credit_due ON installment_balances (business_id, credit_id, due_date);

ANALYZE installment_balances;

-- one of an installment's kept payment arrays (vals, dated on) with a statement's new entries
-- (new_vals, dated new_on, in date order) added: appended when they are dated on or after the
-- latest kept (a payment of today), else merged by date (a backdated payment, a reversal's)
CREATE FUNCTION paid_merged(kept_on date[], vals anyarray, new_on date[], new_vals anyarray)
RETURNS anyarray LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN cardinality(new_on) = 0 THEN vals
    WHEN cardinality(kept_on) = 0 OR new_on[1] >= kept_on[cardinality(kept_on)] THEN vals || new_vals
    ELSE (SELECT array_agg(m.v ORDER BY m.d, m.o)
            FROM (SELECT k.d, k.v, k.o FROM unnest(kept_on, vals) WITH ORDINALITY k(d, v, o)
                  UNION ALL
                  SELECT n.d, n.v, n.o + cardinality(kept_on) FROM unnest(new_on, new_vals) WITH ORDINALITY n(d, v, o)) m)
  END
$$;

-- 052's trigger, keeping the new columns too: a new row copies its installment's due date, amount
-- and tolerance; payment entries are merged into the arrays in date order (punitory_cumulative
-- reads them by date; entries of one date may be in any order); the credits' re-sum reads the due
-- date and amount from the kept rows instead of the installments
CREATE OR REPLACE FUNCTION keep_balances() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- a ledger INSERT of no entry (a write that only moved a status) adds nothing, touches no credit
  IF NOT EXISTS (SELECT FROM new_rows) THEN RETURN NULL; END IF;
  INSERT INTO installment_balances AS b (business_id, credit_id, installment_id, balance, punitory_posted,
                                         charges_posted, principal_paid, last_paid_on, due_date, amount,
                                         tolerance_days, paid_on, paid_principal, paid_punitory)
  SELECT n.business_id, n.credit_id, n.installment_id, n.balance, n.punitory_posted, n.charges_posted,
         n.principal_paid, n.last_paid_on, i.due_date, i.amount, i.tolerance_days,
         n.paid_on, n.paid_principal, n.paid_punitory
    FROM (SELECT n.business_id, n.credit_id, n.installment_id,
                 sum(CASE WHEN n.type = 'payment' THEN -n.amount ELSE n.amount END) AS balance,
                 coalesce(sum(n.amount) FILTER (WHERE n.type = 'punitory'), 0) AS punitory_posted,
                 coalesce(sum(n.amount) FILTER (WHERE n.type = 'charge'), 0) AS charges_posted,
                 coalesce(sum(n.amount - n.punitory_part - n.charge_part) FILTER (WHERE n.type = 'payment'), 0) AS principal_paid,
                 max(n.effective_date) FILTER (WHERE n.type = 'payment') AS last_paid_on,
                 coalesce(array_agg(n.effective_date ORDER BY n.effective_date, n.created_at)
                   FILTER (WHERE n.type = 'payment'), '{}') AS paid_on,
                 coalesce(array_agg(n.amount - n.punitory_part - n.charge_part ORDER BY n.effective_date, n.created_at)
                   FILTER (WHERE n.type = 'payment'), '{}') AS paid_principal,
                 coalesce(array_agg(n.punitory_part ORDER BY n.effective_date, n.created_at)
                   FILTER (WHERE n.type = 'payment'), '{}') AS paid_punitory
            FROM new_rows n
           GROUP BY n.business_id, n.credit_id, n.installment_id) n
    JOIN installments i ON i.business_id = n.business_id AND i.id = n.installment_id
  ON CONFLICT (business_id, credit_id, installment_id) DO UPDATE
     SET balance = b.balance + EXCLUDED.balance,
         punitory_posted = b.punitory_posted + EXCLUDED.punitory_posted,
         charges_posted = b.charges_posted + EXCLUDED.charges_posted,
         principal_paid = b.principal_paid + EXCLUDED.principal_paid,
         last_paid_on = greatest(b.last_paid_on, EXCLUDED.last_paid_on),
         paid_on = paid_merged(b.paid_on, b.paid_on, EXCLUDED.paid_on, EXCLUDED.paid_on),
         paid_principal = paid_merged(b.paid_on, b.paid_principal, EXCLUDED.paid_on, EXCLUDED.paid_principal),
         paid_punitory = paid_merged(b.paid_on, b.paid_punitory, EXCLUDED.paid_on, EXCLUDED.paid_punitory);

  INSERT INTO credit_balances AS k (business_id, credit_id, outstanding, open_from)
  SELECT b.business_id, b.credit_id, sum(b.balance),
         min(b.due_date) FILTER (WHERE b.balance > 0 OR b.principal_paid < b.amount
           OR ((b.charges_posted <> 0 OR b.last_paid_on > b.due_date)
               AND coalesce(c.fees @> '[{"type": "collection"}]'::jsonb, true)))
    FROM (SELECT DISTINCT business_id, credit_id FROM new_rows) t
    JOIN credits c ON c.business_id = t.business_id AND c.id = t.credit_id
    JOIN installment_balances b ON b.business_id = t.business_id AND b.credit_id = t.credit_id
   GROUP BY b.business_id, b.credit_id
  ON CONFLICT (business_id, credit_id) DO UPDATE
     SET outstanding = EXCLUDED.outstanding, open_from = EXCLUDED.open_from;
  RETURN NULL;
END
$$;

-- a holiday moves the tolerance of installments not yet paid (src/db/repositories/holidays.ts)
CREATE FUNCTION keep_installment_tolerance() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE installment_balances b SET tolerance_days = NEW.tolerance_days
   WHERE b.business_id = NEW.business_id AND b.credit_id = NEW.credit_id AND b.installment_id = NEW.id;
  RETURN NULL;
END
$$;

CREATE TRIGGER keep_installment_tolerance AFTER UPDATE OF tolerance_days ON installments
  FOR EACH ROW WHEN (OLD.tolerance_days IS DISTINCT FROM NEW.tolerance_days)
  EXECUTE FUNCTION keep_installment_tolerance();

-- The portfolio summary's per-credit figures as of a day, kept (docs/reports.md, "Per-credit
-- figures kept for the day"). As of today the summary worked out, on every read, what the calendar
-- adds to each open credit's kept outstanding (the punitory accrued since the last posting, the
-- collection charges whose day has come), its overdue amount and its days late: the bulk of the
-- statement, and it grows with the book. Those figures only move with the day and with the credit's
-- events, so a read now stores them in the credit's credit_balances row for the day it read, and
-- the next read of that day uses them while nothing about the credit changed since.
--
-- Validity: ver counts the changes of the credit's row (every ledger INSERT touching the credit,
-- in keep_balances' upsert that already runs; a holiday moving a tolerance; a change of the
-- credit's status or of what its punitory and charge read). Figures are valid only for fig_on = the
-- day read and fig_ver = ver, so a read can never use a figure computed before a change: the
-- change bumps ver in its own transaction. The write path pays nothing more than "ver = ver + 1" in
-- the upsert it already runs (a payment), and one small UPDATE when a credit's terms or status change.
--
-- No backfill: no row is valid until a read (or the daily refresh, src/jobs/summaryFigures.ts)
-- stores its figures.

ALTER TABLE credit_balances
  ADD COLUMN ver           integer NOT NULL DEFAULT 0,
  -- the figures of fig_on, computed when ver was fig_ver; what the calendar adds to outstanding,
  -- the overdue amount, the days late
  ADD COLUMN fig_on        date,
  ADD COLUMN fig_ver       integer,
  ADD COLUMN fig_added     numeric,
  ADD COLUMN fig_overdue   numeric,
  ADD COLUMN fig_days_late integer;

-- 058's function, with ver bumped in the credits' upsert (nothing else changed)
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
     -- ver: the credit's kept figures (fig_*) computed before this entry are no longer valid
     SET outstanding = EXCLUDED.outstanding, open_from = EXCLUDED.open_from, ver = k.ver + 1;
  RETURN NULL;
END
$$;

-- 058's tolerance trigger: a tolerance moves the punitory, so the credit's figures are stale too
CREATE OR REPLACE FUNCTION keep_installment_tolerance() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE installment_balances b SET tolerance_days = NEW.tolerance_days
   WHERE b.business_id = NEW.business_id AND b.credit_id = NEW.credit_id AND b.installment_id = NEW.id;
  UPDATE credit_balances k SET ver = k.ver + 1 WHERE k.business_id = NEW.business_id AND k.credit_id = NEW.credit_id;
  RETURN NULL;
END
$$;

-- a credit's status or what its figures read of it (its punitory rule, VAT, fees with the
-- collection charge, the write-off date where punitory and charges stop) changed: its figures are stale
CREATE FUNCTION stale_credit_figures() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE credit_balances k SET ver = k.ver + 1 WHERE k.business_id = NEW.business_id AND k.credit_id = NEW.id;
  RETURN NULL;
END
$$;

CREATE TRIGGER stale_credit_figures AFTER UPDATE ON credits FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.written_off_at IS DISTINCT FROM NEW.written_off_at
        OR OLD.fees IS DISTINCT FROM NEW.fees OR OLD.vat_rate IS DISTINCT FROM NEW.vat_rate
        OR OLD.daily_punitory_rate IS DISTINCT FROM NEW.daily_punitory_rate
        OR OLD.punitory_mode IS DISTINCT FROM NEW.punitory_mode OR OLD.grace_days IS DISTINCT FROM NEW.grace_days
        OR OLD.max_punitory_days IS DISTINCT FROM NEW.max_punitory_days
        OR OLD.punitory_cap_pct IS DISTINCT FROM NEW.punitory_cap_pct OR OLD.start_date IS DISTINCT FROM NEW.start_date
        OR OLD.branch_id IS DISTINCT FROM NEW.branch_id OR OLD.client_id IS DISTINCT FROM NEW.client_id)
  EXECUTE FUNCTION stale_credit_figures();

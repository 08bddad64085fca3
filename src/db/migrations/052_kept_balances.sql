-- Balances kept as the ledger is written (docs/reports.md, "Summary as of today"). The portfolio
-- summary used to sum the whole ledger of the business on every read; as of today it now reads
-- these rows and works out the parts that move with the calendar (punitory accrued since the last
-- posting, collection charges whose day has come, days late) only for the credits that can have
-- any.
--
-- The ledger is append-only, so each of its INSERT statements adds to these sums, in the same
-- transaction, by the trigger below. The rows are per installment and per credit: only the
-- writers of one credit touch them, and those already queue on the credit's row lock. No row is
-- shared by a whole business (a counter of the business would make its writers queue behind one
-- another).

-- no ledger write may commit between the backfill below and the trigger that keeps the sums after
-- it (an older process still serving during an upgrade): writers wait for this migration instead
LOCK TABLE ledger IN SHARE ROW EXCLUSIVE MODE;

-- installment_balances: an installment's entries summed, all of them (nothing is dated after the
-- business's today), as the summary's per-installment sums read them.
CREATE TABLE installment_balances (
  business_id     uuid NOT NULL,
  credit_id       uuid NOT NULL,
  installment_id  uuid NOT NULL,
  -- installment + punitory + charges + waivers − payments
  balance         numeric NOT NULL,
  punitory_posted numeric NOT NULL,
  charges_posted  numeric NOT NULL,
  -- what payment entries paid of the installment's amount (not of its punitory or charges)
  principal_paid  numeric NOT NULL,
  -- the latest effective date of its payment entries (reversals and rebates included)
  last_paid_on    date,
  PRIMARY KEY (business_id, credit_id, installment_id),
  FOREIGN KEY (business_id, credit_id, installment_id) REFERENCES installments (business_id, credit_id, id)
);

-- credit_balances: per credit, its installments' balances summed, and the due date of its oldest
-- installment that is "open": one whose figures may move with the calendar or that may be overdue
-- (balance > 0, amount not all paid, or, on a credit with a collection charge, a charge posted or
-- a payment dated after its due date: a charge it owes may differ from what is posted). A credit
-- whose open_from is after the day read owes exactly its outstanding and nothing of it is overdue.
CREATE TABLE credit_balances (
  business_id uuid NOT NULL,
  credit_id   uuid NOT NULL,
  outstanding numeric NOT NULL,
  open_from   date,
  PRIMARY KEY (business_id, credit_id),
  FOREIGN KEY (business_id, credit_id) REFERENCES credits (business_id, id)
);

-- the books as they stand
INSERT INTO installment_balances (business_id, credit_id, installment_id, balance, punitory_posted, charges_posted,
                                  principal_paid, last_paid_on)
SELECT l.business_id, l.credit_id, l.installment_id,
       sum(CASE WHEN l.type = 'payment' THEN -l.amount ELSE l.amount END),
       coalesce(sum(l.amount) FILTER (WHERE l.type = 'punitory'), 0),
       coalesce(sum(l.amount) FILTER (WHERE l.type = 'charge'), 0),
       coalesce(sum(l.amount - l.punitory_part - l.charge_part) FILTER (WHERE l.type = 'payment'), 0),
       max(l.effective_date) FILTER (WHERE l.type = 'payment')
  FROM ledger l
 GROUP BY l.business_id, l.credit_id, l.installment_id;

INSERT INTO credit_balances (business_id, credit_id, outstanding, open_from)
SELECT b.business_id, b.credit_id, sum(b.balance),
       min(i.due_date) FILTER (WHERE b.balance > 0 OR b.principal_paid < i.amount
         OR ((b.charges_posted <> 0 OR b.last_paid_on > i.due_date)
             AND coalesce(c.fees @> '[{"type": "collection"}]'::jsonb, true)))
  FROM installment_balances b
  JOIN installments i ON i.business_id = b.business_id AND i.id = b.installment_id
  JOIN credits c ON c.business_id = b.business_id AND c.id = b.credit_id
 GROUP BY b.business_id, b.credit_id;

-- their statistics now, not at autovacuum's next pass: the summary's plan joins them
ANALYZE installment_balances;
ANALYZE credit_balances;

-- every ledger INSERT statement: its rows added per installment, then the credits it touched
-- summed again from their installments (a handful of rows each)
CREATE FUNCTION keep_balances() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO installment_balances AS b (business_id, credit_id, installment_id, balance, punitory_posted,
                                         charges_posted, principal_paid, last_paid_on)
  SELECT n.business_id, n.credit_id, n.installment_id,
         sum(CASE WHEN n.type = 'payment' THEN -n.amount ELSE n.amount END),
         coalesce(sum(n.amount) FILTER (WHERE n.type = 'punitory'), 0),
         coalesce(sum(n.amount) FILTER (WHERE n.type = 'charge'), 0),
         coalesce(sum(n.amount - n.punitory_part - n.charge_part) FILTER (WHERE n.type = 'payment'), 0),
         max(n.effective_date) FILTER (WHERE n.type = 'payment')
    FROM new_rows n
   GROUP BY n.business_id, n.credit_id, n.installment_id
  ON CONFLICT (business_id, credit_id, installment_id) DO UPDATE
     SET balance = b.balance + EXCLUDED.balance,
         punitory_posted = b.punitory_posted + EXCLUDED.punitory_posted,
         charges_posted = b.charges_posted + EXCLUDED.charges_posted,
         principal_paid = b.principal_paid + EXCLUDED.principal_paid,
         last_paid_on = greatest(b.last_paid_on, EXCLUDED.last_paid_on);

  INSERT INTO credit_balances AS k (business_id, credit_id, outstanding, open_from)
  SELECT b.business_id, b.credit_id, sum(b.balance),
         min(i.due_date) FILTER (WHERE b.balance > 0 OR b.principal_paid < i.amount
           OR ((b.charges_posted <> 0 OR b.last_paid_on > i.due_date)
               AND coalesce(c.fees @> '[{"type": "collection"}]'::jsonb, true)))
    FROM (SELECT DISTINCT business_id, credit_id FROM new_rows) t
    JOIN credits c ON c.business_id = t.business_id AND c.id = t.credit_id
    JOIN installment_balances b ON b.business_id = t.business_id AND b.credit_id = t.credit_id
    JOIN installments i ON i.business_id = b.business_id AND i.id = b.installment_id
   GROUP BY b.business_id, b.credit_id
  ON CONFLICT (business_id, credit_id) DO UPDATE
     SET outstanding = EXCLUDED.outstanding, open_from = EXCLUDED.open_from;
  RETURN NULL;
END
$$;

CREATE TRIGGER keep_balances AFTER INSERT ON ledger REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION keep_balances();

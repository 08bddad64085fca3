-- What the portfolio summary as of today reads (docs/reports.md, "Summary as of today"), read
-- through indexes that hold only that.
--
-- A credit's installments by due date: the summary works out only those due between the credit's
-- oldest open installment (credit_balances.open_from) and the day read, a range of this index, not
-- every installment of the credit.
CREATE INDEX installments_credit_due ON installments (business_id, credit_id, due_date);

-- An installment's payment entries, with what the punitory and the collection charge read of
-- them: the summary looks up the payments of each overdue installment (most have none); this
-- index answers without visiting the ledger's rows, and holds only payments (about one entry in
-- five). The ledger is append-only: its pages are soon all visible, as an index-only scan needs.
CREATE INDEX ledger_installment_payments ON ledger (business_id, installment_id, effective_date, created_at)
  INCLUDE (amount, punitory_part, charge_part) WHERE type = 'payment';

-- The payments of a business by effective date, with what the summary's collected figures read
-- (the month's payments: about one entry in five of the month's ledger).
CREATE INDEX ledger_payments_effective ON ledger (business_id, effective_date)
  INCLUDE (amount, origin, credit_id, branch_id) WHERE type = 'payment';

-- One foreign key where the ledger had three on its hot path.
--
-- A ledger entry referenced its business, its credit and its installment with three separate
-- keys: three lookups per row inserted (the daily run inserts ~100,000 a day for a book of that
-- many overdue installments; foreign key checks were about half of the ledger INSERT's cost,
-- audit aside). One composite key to the installment *with its credit* gives the same guarantees
-- and one more:
--   - the installment exists in the same business (as before);
--   - the credit exists in the same business: installments (business_id, credit_id) references
--     credits, so an entry's credit is its installment's credit, which exists;
--   - the business exists: both of those tables reference businesses;
--   - new: an entry can no longer name a credit other than its installment's.
-- The branch key is unchanged (checked only when an entry has a branch).
ALTER TABLE installments ADD CONSTRAINT installments_business_id_credit_id_id_key UNIQUE (business_id, credit_id, id);

ALTER TABLE ledger
  DROP CONSTRAINT ledger_business_id_fkey,
  DROP CONSTRAINT ledger_business_id_credit_id_fkey,
  DROP CONSTRAINT ledger_business_id_installment_id_fkey,
  ADD CONSTRAINT ledger_installment_fkey FOREIGN KEY (business_id, credit_id, installment_id)
    REFERENCES installments (business_id, credit_id, id);

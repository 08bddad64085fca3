-- How far punitory has been posted on each credit, kept out of the audited credits row.
--
-- The daily run marks every credit it processed as accrued through its date. As a column of
-- credits that was one credits UPDATE, one audit row and a new updated_at per overdue credit per
-- day, although nothing a lender cares about had changed. This watermark is derived from the
-- ledger (the punitory entries posted and their effective dates), which is audited and
-- append-only, so it is not audited itself. Writers hold the credit's row lock (FOR UPDATE on
-- credits) while they change it.
CREATE TABLE credit_accruals (
  business_id    uuid NOT NULL,
  credit_id      uuid NOT NULL,
  posted_through date NOT NULL,
  PRIMARY KEY (business_id, credit_id),
  FOREIGN KEY (business_id, credit_id) REFERENCES credits (business_id, id)
);

-- copying does not touch credits rows: no audit entry, updated_at kept
INSERT INTO credit_accruals (business_id, credit_id, posted_through)
SELECT business_id, id, punitory_posted_through FROM credits WHERE punitory_posted_through IS NOT NULL;

ALTER TABLE credits DROP COLUMN punitory_posted_through;

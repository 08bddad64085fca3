-- A close without payment (docs/domain.md, "Early payoff"): when what was paid toward installments
-- due later exceeds what settles the credit, POST /api/credits/{id}/payoff closes it with no cash
-- coming in. The close is recorded as a payment of the credit whose amount is minus the refund
-- handed back to the client (0 when nothing is): its ledger entries are the rebate (origin
-- `rebate`) and the refund taken back off the installments (origin `correction`, negative), so
-- the rebate belongs to it and reversing it reopens the credit. A cash payment stays positive; a
-- close carries no channel or reference.
ALTER TABLE payments
  DROP CONSTRAINT payments_amount_check,
  ADD CONSTRAINT payments_amount CHECK (amount > 0 OR (channel IS NULL AND external_reference IS NULL));

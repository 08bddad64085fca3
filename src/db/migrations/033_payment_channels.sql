-- Payment channels (docs/payments.md, "Channels and references"):
-- how a payment was made (method), through which network or bank (channel) and the reference that
-- channel gave it (external_reference). A channel's reference identifies one payment of the
-- business, whatever its credit: the unique index below makes a second payment with the same pair
-- fail even when two requests race past the service's own check. A reversed payment keeps its
-- reference (a bounced transfer sent again is a new reference). A payment without a channel is
-- keyed by its reference alone (NULLS NOT DISTINCT).
ALTER TABLE payments
  ADD COLUMN method text NOT NULL DEFAULT 'cash'
    CHECK (method IN ('cash', 'transfer', 'debit', 'card', 'collection_network', 'other')),
  ADD COLUMN channel text CHECK (char_length(channel) <= 40),
  ADD COLUMN external_reference text CHECK (char_length(external_reference) <= 100);

CREATE UNIQUE INDEX payments_external_reference ON payments (business_id, channel, external_reference)
  NULLS NOT DISTINCT WHERE external_reference IS NOT NULL;

-- the collections report reads a business's payments by date; the payments export by creation
CREATE INDEX payments_paid_on ON payments (business_id, paid_on);
CREATE INDEX payments_created ON payments (business_id, created_at, id);

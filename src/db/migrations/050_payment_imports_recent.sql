-- The list of a business's payment imports, newest first (GET /api/payment-imports,
-- docs/payments.md "Importing payments"): read from this index, a page by offset or after a
-- cursor's place (created_at, id), at the same cost at any depth.
CREATE INDEX payment_imports_recent ON payment_imports (business_id, created_at DESC, id DESC);

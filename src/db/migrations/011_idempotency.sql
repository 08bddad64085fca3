-- Idempotency keys are kept IDEMPOTENCY_TTL_HOURS (src/services/idempotency.ts); the sweep
-- (src/jobs/idempotencySweep.ts) deletes the older ones, oldest first, a batch a statement. This
-- index lets it find them without reading the whole table.
CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);

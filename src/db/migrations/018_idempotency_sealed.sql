-- Stored answers sealed under the caller's Idempotency-Key (src/services/idempotency.ts). The key
-- is kept as its SHA-256 (key_digest) and the answer encrypted with a key derived from the
-- Idempotency-Key itself (sealed), so every POST can answer a retry, those whose answer carries a
-- secret shown once (a new API key, a set-password link, an upload link's token, a webhook
-- secret) included, while this table holds nothing of such a secret that reads without the key
-- the caller chose.
--
-- Rows written before this migration (alive for IDEMPOTENCY_TTL_HOURS at most) keep their answer
-- in `response`, in the clear as before; their key is digested here so that a retry across the
-- upgrade still finds it.
ALTER TABLE idempotency_keys RENAME COLUMN key TO key_digest;
UPDATE idempotency_keys SET key_digest = encode(sha256(convert_to(key_digest, 'UTF8')), 'hex');
ALTER TABLE idempotency_keys ALTER COLUMN response DROP NOT NULL;
ALTER TABLE idempotency_keys ADD COLUMN sealed bytea;
ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_answer CHECK ((response IS NULL) <> (sealed IS NULL));

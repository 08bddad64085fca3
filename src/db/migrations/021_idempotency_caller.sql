-- A stored answer belongs to the caller that sent its Idempotency-Key (an API key, or a user, with
-- the operator acting as them if any), not to the whole business: another admin or key of the
-- same business sending the same key and body gets a write of its own, never the first caller's
-- answer (a new key's secret, a set-password link). Rows stored before keep caller '' and match
-- no caller: they expire with their IDEMPOTENCY_TTL_HOURS.
ALTER TABLE idempotency_keys ADD COLUMN caller text NOT NULL DEFAULT '';
ALTER TABLE idempotency_keys ALTER COLUMN caller DROP DEFAULT;
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey;
ALTER TABLE idempotency_keys ADD PRIMARY KEY (business_id, caller, key_digest);

-- Every unique key of a tenant table leads with business_id, so the schema distributes by
-- business_id (Citus, docs/deployment.md "Many lenders: distributing by business") without a
-- change: a distributed table's unique keys must hold its distribution column. The keys below were
-- unique across businesses; each becomes unique within its business, which the rows already are
-- (a weaker rule cannot fail on existing data). Where a lookup has no business to start from (a
-- key, an upload link or a user found by its hash or id), a plain index keeps it one index scan;
-- their uniqueness across businesses rests on where they come from: 256-bit random secrets and
-- random uuids.
--
-- Only index builds and drops, in this one transaction: the large tables (events, webhook
-- deliveries) get one index each and lose one, and their writes wait for the build, not their reads.

-- api_keys: the key's hash (the request names no business) and the id (the CLI revokes by id)
ALTER TABLE api_keys ADD CONSTRAINT api_keys_business_id_key_hash_key UNIQUE (business_id, key_hash);
CREATE INDEX api_keys_key_hash ON api_keys (key_hash);
ALTER TABLE api_keys DROP CONSTRAINT api_keys_key_hash_key;
DROP INDEX api_keys_id;
CREATE INDEX api_keys_id ON api_keys (id);

-- users: found by id alone where a session or a link names the user
DROP INDEX users_id;
CREATE INDEX users_id ON users (id);

-- upload links: the link carries its token only
ALTER TABLE upload_sessions ADD CONSTRAINT upload_sessions_business_id_token_hash_key UNIQUE (business_id, token_hash);
CREATE INDEX upload_sessions_token_hash ON upload_sessions (token_hash);
ALTER TABLE upload_sessions DROP CONSTRAINT upload_sessions_token_hash_key;

-- holidays and events: their ids, unique within the business (reads name the business)
ALTER TABLE holidays ADD CONSTRAINT holidays_business_id_id_key UNIQUE (business_id, id);
ALTER TABLE holidays DROP CONSTRAINT holidays_id_key;
ALTER TABLE events ADD CONSTRAINT events_business_id_id_key UNIQUE (business_id, id);
ALTER TABLE events DROP CONSTRAINT events_id_key;

-- webhook deliveries: one per endpoint and event, within the business; the new key also serves
-- an endpoint's list newest first (scanned backwards), so the list's own index goes
ALTER TABLE webhook_deliveries
  ADD CONSTRAINT webhook_deliveries_business_id_endpoint_id_event_sequence_key
  UNIQUE (business_id, endpoint_id, event_sequence);
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_endpoint_id_event_sequence_key;
DROP INDEX webhook_deliveries_list;

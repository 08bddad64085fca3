-- Every server process keeps the keys it has checked in memory (src/services/apiKeys.ts): a key
-- is looked up once, not on every request. A revoked, changed or deleted key must be refused by
-- every process from its next request on, so the database announces each such change to all of
-- them on the channel lending_api_keys, when the transaction that made it commits. The payload
-- says what to forget: key:<id>, business:<id> (the business's time zone travels with its keys),
-- or nothing (forget everything).
--
-- last_used_at alone is not a change worth announcing: it is written at most once a minute per
-- key by the processes themselves.
CREATE FUNCTION api_keys_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_LEVEL = 'STATEMENT' THEN
    PERFORM pg_notify('lending_api_keys', '');
  ELSIF TG_TABLE_NAME = 'businesses' THEN
    PERFORM pg_notify('lending_api_keys', 'business:' || OLD.id);
  ELSE
    PERFORM pg_notify('lending_api_keys', 'key:' || OLD.id);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER announce_change AFTER UPDATE ON api_keys FOR EACH ROW
  WHEN ((to_jsonb(OLD) - 'last_used_at') IS DISTINCT FROM (to_jsonb(NEW) - 'last_used_at'))
  EXECUTE FUNCTION api_keys_changed();
CREATE TRIGGER announce_delete AFTER DELETE ON api_keys FOR EACH ROW EXECUTE FUNCTION api_keys_changed();
CREATE TRIGGER announce_truncate AFTER TRUNCATE ON api_keys FOR EACH STATEMENT EXECUTE FUNCTION api_keys_changed();
CREATE TRIGGER announce_key_change AFTER UPDATE ON businesses FOR EACH ROW
  WHEN (OLD.timezone IS DISTINCT FROM NEW.timezone OR OLD.id IS DISTINCT FROM NEW.id)
  EXECUTE FUNCTION api_keys_changed();
CREATE TRIGGER announce_key_delete AFTER DELETE ON businesses FOR EACH ROW EXECUTE FUNCTION api_keys_changed();

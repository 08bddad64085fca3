-- The change feed (GET /api/events) and what webhooks deliver: one row per business event, written
-- in the transaction of the change that causes it (src/services/events.ts buffers a transaction's
-- events, src/db/connection.ts withActor writes them just before it commits).
--
-- Gapless: `sequence` is dense per business and taken from event_counters at the very end of the
-- writing transaction. The counter's row lock lasts until that transaction commits or rolls back,
-- so a business's event transactions commit in sequence order: a reader that has seen sequence n
-- has seen every event before it, and a poller that asks for `after = n` never misses one, however
-- the writers' transactions interleave. The lock is held only for the commit itself, not for the
-- transaction's work. A rolled-back transaction gives its numbers back.
CREATE TABLE event_counters (
  business_id   uuid PRIMARY KEY REFERENCES businesses (id),
  last_sequence bigint NOT NULL DEFAULT 0,
  -- the daily run has announced installment.overdue for installments due up to this date
  overdue_through date
);

CREATE TABLE events (
  business_id  uuid NOT NULL REFERENCES businesses (id),
  sequence     bigint NOT NULL CHECK (sequence > 0),
  id           uuid NOT NULL DEFAULT gen_random_uuid() UNIQUE,
  type         text NOT NULL,
  -- what a webhook endpoint receives in order: a credit's id for the events of a credit, its
  -- payments, installments and punitory; otherwise the id of the object itself
  ordering_key uuid NOT NULL,
  data         jsonb NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (business_id, sequence)
);

-- the feed filtered by type
CREATE INDEX events_by_type ON events (business_id, type, sequence);

-- An event, once written, is what was announced: never changed or removed.
CREATE TRIGGER append_only BEFORE UPDATE OR DELETE ON events FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER append_only_truncate BEFORE TRUNCATE ON events FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();

-- Existing businesses: installments already late when this runs are not announced as newly late;
-- the first daily run announces those that fall due from then on.
INSERT INTO event_counters (business_id, overdue_through)
SELECT id, (now() AT TIME ZONE timezone)::date - 1 FROM businesses;

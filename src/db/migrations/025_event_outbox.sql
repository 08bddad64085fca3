-- The feed without the queue (docs/events.md "Why a poller never misses an event"): writers no
-- longer number their events. Until now each writing transaction took its business's
-- event_counters row at the end and held it until its commit, so a business's commits went one
-- after another. Now:
--
-- - a writing transaction inserts its events into event_outbox, with a position from one global
--   identity sequence (no lock: writers of a business commit in parallel);
-- - a sequencer pass (src/db/repositories/events.ts sequenceEvents), under the business's
--   event_counters row lock that only passes take, moves the outbox rows it can see (committed
--   ones only) into events, numbering them last_sequence + 1, + 2, … in position order, and
--   advances the counter, in one transaction. The feed runs a pass before it reads, the webhook
--   job every second.
--
-- So a sequence is only ever given to a committed event, passes of a business commit one after
-- the other, and events stays what it was: dense per business, and whatever a reader sees is
-- 1..n. Per credit, order is commit order: the credit's row lock makes the next writer wait for
-- the previous one's commit before it inserts its events (at its very end), so its positions are
-- higher, and a pass that sees the later transaction's rows sees the earlier one's too.
--
-- No foreign key: the rows are moved into events (which has its own) within a second or so, and
-- a writer should pay for nothing it does not need.
CREATE TABLE event_outbox (
  business_id  uuid NOT NULL,
  -- the global insertion order; a cache of 1 (the default) keeps it increasing across sessions
  pos          bigint GENERATED ALWAYS AS IDENTITY,
  id           uuid NOT NULL DEFAULT gen_random_uuid(),
  type         text NOT NULL,
  ordering_key uuid NOT NULL,
  data         jsonb NOT NULL,
  -- when the change's transaction ran (the event's created_at)
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (business_id, pos)
);

-- How far the daily run has announced overdue installments moves out of event_counters: the run
-- holds that row locked for its whole transaction, and the counter row is now the sequencer's.
CREATE TABLE overdue_announcements (
  business_id uuid PRIMARY KEY REFERENCES businesses (id),
  -- installment.overdue announced for installments due up to this date (null: never yet)
  through     date
);
INSERT INTO overdue_announcements (business_id, through) SELECT business_id, overdue_through FROM event_counters;
ALTER TABLE event_counters DROP COLUMN overdue_through;

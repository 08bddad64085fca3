-- Webhooks (docs/webhooks.md): endpoints a business registers, and
-- one delivery per event and endpoint, tried until the receiver answers 2xx or 3 days have passed.
--
-- Three tables, split by who may see what:
-- - webhook_endpoints: what an admin manages (URL, event types, enabled). Audited like any
--   business data.
-- - webhook_endpoint_state: the signing secret and the dispatch cursor. Not audited: the secret
--   must never reach the log (it is kept as is, because signing needs it back), and the cursor
--   moves with every event (auditing it would log each dispatch).
-- - webhook_deliveries: operational rows written by the delivery job. Not audited.
--
-- The work is shared by any number of processes (src/services/webhooks.ts):
-- - the dispatcher locks one endpoint's state row (FOR UPDATE SKIP LOCKED), reads the events after
--   its cursor (sequences commit in order: migration 012), inserts a delivery per matching event
--   and advances the cursor, in one transaction;
-- - senders claim due deliveries (FOR UPDATE SKIP LOCKED) and commit a lease (next_attempt_at
--   moved forward) before the HTTP call, so a sender killed mid-call leaves its delivery to be
--   claimed again once the lease has passed: at least once, never lost.
CREATE TABLE webhook_endpoints (
  business_id     uuid NOT NULL REFERENCES businesses (id),
  id              uuid NOT NULL DEFAULT gen_random_uuid(),
  url             text NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
  -- event types (src/services/events.ts EVENT_TYPES), or {*} for every type
  events          text[] NOT NULL CHECK (cardinality(events) >= 1),
  description     text,
  enabled         boolean NOT NULL DEFAULT true,
  -- set when deliveries failed for 3 days and the endpoint was disabled (cleared on re-enabling)
  disabled_at     timestamptz,
  disabled_reason text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (business_id, id)
);

CREATE TRIGGER audit_insert AFTER INSERT ON webhook_endpoints REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();
CREATE TRIGGER audit_update AFTER UPDATE ON webhook_endpoints REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();
CREATE TRIGGER audit_delete AFTER DELETE ON webhook_endpoints REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();

CREATE TABLE webhook_endpoint_state (
  business_id   uuid NOT NULL,
  endpoint_id   uuid NOT NULL,
  -- whsec_…: shown once when the endpoint is created; signs every delivery
  secret        text NOT NULL,
  -- the last event sequence the dispatcher has turned into deliveries (starts at the business's
  -- last sequence when the endpoint is created: only later events are delivered)
  last_sequence bigint NOT NULL CHECK (last_sequence >= 0),
  PRIMARY KEY (business_id, endpoint_id),
  FOREIGN KEY (business_id, endpoint_id) REFERENCES webhook_endpoints (business_id, id) ON DELETE CASCADE
);

CREATE TABLE webhook_deliveries (
  business_id      uuid NOT NULL,
  id               uuid NOT NULL DEFAULT gen_random_uuid(),
  endpoint_id      uuid NOT NULL,
  event_sequence   bigint NOT NULL,
  event_id         uuid NOT NULL,
  event_type       text NOT NULL,
  -- the event's ordering_key: a delivery waits while an earlier one with the same key and endpoint
  -- is not delivered
  ordering_key     uuid NOT NULL,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  -- attempts started (a claim counts one, whether or not an answer was recorded)
  attempt          integer NOT NULL DEFAULT 0 CHECK (attempt >= 0),
  -- the last attempt's HTTP status (null: no answer) and what went wrong, in a line
  status_code      integer,
  error            text,
  created_at       timestamptz NOT NULL,
  first_attempt_at timestamptz,
  last_attempt_at  timestamptz,
  -- pending: when it may be attempted (while an attempt is in flight, the end of its lease);
  -- delivered and failed: null
  next_attempt_at  timestamptz,
  delivered_at     timestamptz,
  PRIMARY KEY (business_id, id),
  UNIQUE (endpoint_id, event_sequence),
  FOREIGN KEY (business_id, endpoint_id) REFERENCES webhook_endpoints (business_id, id) ON DELETE CASCADE,
  FOREIGN KEY (business_id, event_sequence) REFERENCES events (business_id, sequence),
  CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL)),
  CHECK ((status = 'delivered') = (delivered_at IS NOT NULL))
);

-- what the senders claim: pending deliveries by due time
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
-- the ordering check: an earlier delivery of the same endpoint and key that is not delivered
CREATE INDEX webhook_deliveries_open ON webhook_deliveries (endpoint_id, ordering_key, event_sequence)
  WHERE status <> 'delivered';
-- an endpoint's deliveries, newest first (GET /api/webhook-endpoints/{id}/deliveries)
CREATE INDEX webhook_deliveries_list ON webhook_deliveries (business_id, endpoint_id, event_sequence DESC);
CREATE INDEX webhook_deliveries_list_status ON webhook_deliveries (business_id, endpoint_id, status, event_sequence DESC);
-- the sweep of deliveries delivered long ago
CREATE INDEX webhook_deliveries_delivered ON webhook_deliveries (delivered_at) WHERE status = 'delivered';

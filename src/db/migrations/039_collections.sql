-- Collections (docs/collections.md): promises to pay, contact notes and a collector per credit.
--
-- 1. credits.collector_id: the user of the business who collects the credit (null: nobody).
-- 2. promises: what a client promised to pay on a credit by a date. `status` is what is decided
--    for good: 'pending' until the daily run (src/services/accrual.ts) settles it once its date
--    has passed ('kept' or 'broken'), or until it is cancelled. Reads decide a pending promise
--    themselves from the payments (src/db/repositories/promises.ts, PROMISE_STATUS), so the
--    answer never waits for the run. broken_at is when the run found it broken (promise.broken
--    is emitted by the statement that sets it, once).
-- 3. client_notes: each contact with a client (a call, a visit, a message) and its outcome;
--    append-only in use (no route changes or deletes one).
-- Each audited like every tenant table (migration 006's statement triggers).

-- ---- 1. the collector
ALTER TABLE credits ADD COLUMN collector_id uuid;
ALTER TABLE credits ADD CONSTRAINT credits_collector_fkey
  FOREIGN KEY (business_id, collector_id) REFERENCES users (business_id, id);
-- the worklist's collector=<user> filter (and the user's credits)
CREATE INDEX credits_collector ON credits (business_id, collector_id) WHERE collector_id IS NOT NULL;

-- ---- 2. promises
CREATE TABLE promises (
  business_id  uuid NOT NULL REFERENCES businesses (id),
  id           uuid NOT NULL DEFAULT gen_random_uuid(),
  credit_id    uuid NOT NULL,
  amount       numeric(14, 2) NOT NULL CHECK (amount > 0),
  promised_for date NOT NULL,
  status       text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'kept', 'broken', 'cancelled')),
  note         text CHECK (length(note) <= 2000),
  created_by   text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  cancelled_at timestamptz,
  broken_at    timestamptz,
  PRIMARY KEY (business_id, id),
  FOREIGN KEY (business_id, credit_id) REFERENCES credits (business_id, id),
  CHECK ((status = 'cancelled') = (cancelled_at IS NOT NULL)),
  CHECK ((status = 'broken') = (broken_at IS NOT NULL))
);
-- a credit's promises newest first; the worklist's latest promise of a credit
CREATE INDEX promises_credit ON promises (business_id, credit_id, created_at DESC, id DESC);
-- the daily run: pending promises whose date has passed
CREATE INDEX promises_pending ON promises (business_id, promised_for) WHERE status = 'pending';

CREATE TRIGGER audit_insert AFTER INSERT ON promises REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();
CREATE TRIGGER audit_update AFTER UPDATE ON promises REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();
CREATE TRIGGER audit_delete AFTER DELETE ON promises REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();

-- ---- 3. contact notes
CREATE TABLE client_notes (
  business_id uuid NOT NULL REFERENCES businesses (id),
  id          uuid NOT NULL DEFAULT gen_random_uuid(),
  client_id   uuid NOT NULL,
  credit_id   uuid,
  channel     text NOT NULL CHECK (channel IN ('call', 'visit', 'whatsapp', 'email', 'sms', 'other')),
  outcome     text NOT NULL CHECK (length(outcome) BETWEEN 1 AND 2000),
  created_by  text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (business_id, id),
  FOREIGN KEY (business_id, client_id) REFERENCES clients (business_id, id),
  FOREIGN KEY (business_id, credit_id) REFERENCES credits (business_id, id)
);
-- a client's notes newest first; the worklist's last note of a client
CREATE INDEX client_notes_client ON client_notes (business_id, client_id, created_at DESC, id DESC);

CREATE TRIGGER audit_insert AFTER INSERT ON client_notes REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();
CREATE TRIGGER audit_update AFTER UPDATE ON client_notes REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();
CREATE TRIGGER audit_delete AFTER DELETE ON client_notes REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();

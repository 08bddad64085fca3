-- Notifications (docs/notifications.md): the e-mails the service sends a business's clients and
-- users, one row each, whatever became of it.
--
-- - clients.notifications_opt_out: a client who asked not to be reminded gets no reminder.
-- - notifications: a reminder is queued by the daily run and sent by the mail job (any number of
--   processes: a claim is a lease, SKIP LOCKED), retried with backoff until MAIL_MAX_ATTEMPTS; a
--   set-password e-mail is sent once when the link is made (its link is a credential: it is never
--   stored, so body is null). Operational rows, like webhook deliveries: not audited (the list is
--   their record). At most one reminder per installment, kind and day offset, whatever runs twice.
ALTER TABLE clients ADD COLUMN notifications_opt_out boolean NOT NULL DEFAULT false;

CREATE TABLE notifications (
  business_id     uuid NOT NULL REFERENCES businesses (id),
  id              uuid NOT NULL DEFAULT gen_random_uuid(),
  client_id       uuid,
  user_id         uuid,
  credit_id       uuid,
  installment_id  uuid,
  kind            text NOT NULL CHECK (kind IN ('password_link', 'reminder_before_due', 'reminder_overdue')),
  -- the rule's days: before the due date, or late
  offset_days     integer CHECK (offset_days BETWEEN 0 AND 365),
  channel         text NOT NULL DEFAULT 'email' CHECK (channel = 'email'),
  "to"            text NOT NULL CHECK (length("to") <= 254),
  subject         text NOT NULL,
  body            text,
  status          text NOT NULL CHECK (status IN ('queued', 'sent', 'failed', 'not_configured')),
  attempts        integer NOT NULL DEFAULT 0,
  error           text,
  next_attempt_at timestamptz,
  lease_until     timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  sent_at         timestamptz,
  PRIMARY KEY (business_id, id),
  FOREIGN KEY (business_id, client_id) REFERENCES clients (business_id, id),
  FOREIGN KEY (business_id, user_id) REFERENCES users (business_id, id),
  FOREIGN KEY (business_id, credit_id) REFERENCES credits (business_id, id),
  FOREIGN KEY (business_id, installment_id) REFERENCES installments (business_id, id),
  CHECK (status <> 'queued' OR next_attempt_at IS NOT NULL),
  CHECK ((status = 'sent') = (sent_at IS NOT NULL))
);
-- never twice for the same installment, rule and day
CREATE UNIQUE INDEX notifications_once ON notifications (business_id, installment_id, kind, offset_days)
  WHERE installment_id IS NOT NULL;
-- the mail job's queue, across businesses
CREATE INDEX notifications_due ON notifications (next_attempt_at) WHERE status = 'queued';
-- the list, newest first: all, one client's, one status
CREATE INDEX notifications_created ON notifications (business_id, created_at DESC, id DESC);
CREATE INDEX notifications_client ON notifications (business_id, client_id, created_at DESC, id DESC)
  WHERE client_id IS NOT NULL;

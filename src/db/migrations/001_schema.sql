-- The whole schema. Every tenant table is keyed by (business_id, id) and every reference between
-- tenant rows carries business_id, so the database itself refuses a row that points at another
-- business's row, and the schema could be distributed by business_id (Citus).

CREATE TABLE businesses (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  timezone    text NOT NULL DEFAULT 'UTC',
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- One row a business: the gapless per-business credit counter (row lock serialises creators).
CREATE TABLE business_sequences (
  business_id   uuid PRIMARY KEY REFERENCES businesses (id),
  last_credit_seq integer NOT NULL DEFAULT 0
);

CREATE TABLE api_keys (
  business_id  uuid NOT NULL REFERENCES businesses (id),
  id           uuid NOT NULL DEFAULT gen_random_uuid(),
  name         text,
  scope        text NOT NULL CHECK (scope IN ('read', 'full')),
  prefix       text NOT NULL,
  key_hash     text NOT NULL UNIQUE,
  created_at   timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at   timestamptz,
  PRIMARY KEY (business_id, id)
);
CREATE UNIQUE INDEX api_keys_id ON api_keys (id);

CREATE TABLE branches (
  business_id uuid NOT NULL REFERENCES businesses (id),
  id          uuid NOT NULL DEFAULT gen_random_uuid(),
  name        text NOT NULL,
  address     text,
  phone       text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  deleted_at  timestamptz,
  PRIMARY KEY (business_id, id)
);

CREATE TABLE clients (
  business_id   uuid NOT NULL REFERENCES businesses (id),
  id            uuid NOT NULL DEFAULT gen_random_uuid(),
  first_name    text,
  last_name     text,
  dni           text NOT NULL,
  sex           text CHECK (sex IN ('m', 'f', 'o')),
  street        text,
  street_number text,
  floor         text,
  apartment     text,
  city          text,
  state         text,
  country       text,
  zip_code      text,
  phone         text,
  alt_phone     text,
  email         text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (business_id, id),
  UNIQUE (business_id, dni)
);
CREATE INDEX clients_created ON clients (business_id, created_at, id);

CREATE TABLE credit_configs (
  business_id              uuid NOT NULL REFERENCES businesses (id),
  id                       uuid NOT NULL DEFAULT gen_random_uuid(),
  name                     text NOT NULL,
  is_active                boolean NOT NULL DEFAULT true,
  installments_count       integer NOT NULL DEFAULT 1 CHECK (installments_count BETWEEN 1 AND 12),
  days_until_first_payment integer NOT NULL DEFAULT 30 CHECK (days_until_first_payment >= 0),
  cut_type                 text NOT NULL DEFAULT 'fixed' CHECK (cut_type IN ('fixed', 'monthly')),
  daily_punitory_rate      numeric(12, 6) NOT NULL DEFAULT 0 CHECK (daily_punitory_rate >= 0),
  interest_rate            numeric(12, 6) NOT NULL DEFAULT 0 CHECK (interest_rate >= 0),
  payment_day              integer NOT NULL DEFAULT 10 CHECK (payment_day BETWEEN 1 AND 28),
  grace_days               integer NOT NULL DEFAULT 0 CHECK (grace_days >= 0),
  punitory_mode            text NOT NULL DEFAULT 'simple_outstanding'
                             CHECK (punitory_mode IN ('simple_outstanding', 'compound', 'full_amount')),
  max_punitory_days        integer NOT NULL DEFAULT 0 CHECK (max_punitory_days >= 0),
  punitory_cap_pct         numeric(12, 6) NOT NULL DEFAULT 0 CHECK (punitory_cap_pct >= 0),
  write_off_days           integer NOT NULL DEFAULT 0 CHECK (write_off_days >= 0),
  created_at               timestamptz NOT NULL DEFAULT now(),
  updated_at               timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (business_id, id)
);

-- A credit keeps a snapshot of the plan terms it was created with: editing the plan later
-- never changes it.
CREATE TABLE credits (
  business_id                  uuid NOT NULL REFERENCES businesses (id),
  id                           uuid NOT NULL DEFAULT gen_random_uuid(),
  client_id                    uuid NOT NULL,
  credit_config_id             uuid NOT NULL,
  amount                       numeric(14, 2) NOT NULL CHECK (amount > 0),
  total                        numeric(14, 2) NOT NULL CHECK (total >= amount),
  status                       text NOT NULL DEFAULT 'active'
                                 CHECK (status IN ('active', 'refinanced', 'closed', 'written_off', 'inactive')),
  refinanced_from_id           uuid,
  created_by                   text NOT NULL,
  origin_transaction_reference text,
  branch_id                    uuid,
  sequential_id                integer NOT NULL,
  start_date                   date NOT NULL,
  installments_count           integer NOT NULL,
  days_until_first_payment     integer NOT NULL,
  cut_type                     text NOT NULL,
  payment_day                  integer NOT NULL,
  interest_rate                numeric(12, 6) NOT NULL,
  daily_punitory_rate          numeric(12, 6) NOT NULL,
  grace_days                   integer NOT NULL,
  punitory_mode                text NOT NULL,
  max_punitory_days            integer NOT NULL,
  punitory_cap_pct             numeric(12, 6) NOT NULL,
  write_off_days               integer NOT NULL,
  punitory_posted_through      date,
  created_at                   timestamptz NOT NULL DEFAULT now(),
  updated_at                   timestamptz NOT NULL DEFAULT now(),
  written_off_at               timestamptz,
  write_off_reason             text,
  PRIMARY KEY (business_id, id),
  UNIQUE (business_id, sequential_id),
  FOREIGN KEY (business_id, client_id) REFERENCES clients (business_id, id),
  FOREIGN KEY (business_id, credit_config_id) REFERENCES credit_configs (business_id, id),
  FOREIGN KEY (business_id, branch_id) REFERENCES branches (business_id, id),
  FOREIGN KEY (business_id, refinanced_from_id) REFERENCES credits (business_id, id),
  CHECK ((status = 'written_off') = (written_off_at IS NOT NULL))
);
CREATE INDEX credits_client ON credits (business_id, client_id, created_at);
CREATE INDEX credits_status ON credits (business_id, status);
CREATE INDEX credits_created ON credits (business_id, created_at, id);

CREATE TABLE installments (
  business_id uuid NOT NULL REFERENCES businesses (id),
  id          uuid NOT NULL DEFAULT gen_random_uuid(),
  credit_id   uuid NOT NULL,
  number      integer NOT NULL CHECK (number >= 1),
  amount      numeric(14, 2) NOT NULL CHECK (amount >= 0),
  due_date    date NOT NULL,
  status      text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'partial', 'paid')),
  -- the day it became paid (the paid_on of the payment that completed it), for days_late
  paid_date   date,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (business_id, id),
  UNIQUE (business_id, credit_id, number),
  FOREIGN KEY (business_id, credit_id) REFERENCES credits (business_id, id),
  CHECK ((status = 'paid') = (paid_date IS NOT NULL))
);
CREATE INDEX installments_unpaid_due ON installments (business_id, due_date) WHERE status <> 'paid';
CREATE INDEX installments_created ON installments (business_id, created_at, id);

-- Append-only: corrections are new entries (a negative punitory entry), never edits.
-- For payment entries, punitory_part is the share of the slice applied to punitory; the rest
-- paid the installment amount.
CREATE TABLE ledger (
  business_id    uuid NOT NULL REFERENCES businesses (id),
  id             uuid NOT NULL DEFAULT gen_random_uuid(),
  credit_id      uuid NOT NULL,
  installment_id uuid NOT NULL,
  type           text NOT NULL CHECK (type IN ('installment', 'punitory', 'payment')),
  amount         numeric(14, 2) NOT NULL,
  punitory_part  numeric(14, 2) NOT NULL DEFAULT 0,
  effective_date date NOT NULL,
  payment_id     uuid,
  branch_id      uuid,
  created_by     text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (business_id, id),
  FOREIGN KEY (business_id, credit_id) REFERENCES credits (business_id, id),
  FOREIGN KEY (business_id, installment_id) REFERENCES installments (business_id, id),
  FOREIGN KEY (business_id, branch_id) REFERENCES branches (business_id, id),
  CHECK (type = 'punitory' OR amount > 0),
  CHECK (type = 'payment' OR punitory_part = 0),
  CHECK (punitory_part >= 0 AND punitory_part <= amount OR type <> 'payment')
);
CREATE INDEX ledger_credit ON ledger (business_id, credit_id, created_at);
CREATE INDEX ledger_installment ON ledger (business_id, installment_id);
CREATE INDEX ledger_created ON ledger (business_id, created_at, id);
CREATE INDEX ledger_effective ON ledger (business_id, effective_date);

CREATE TABLE upload_sessions (
  business_id  uuid NOT NULL REFERENCES businesses (id),
  id           uuid NOT NULL DEFAULT gen_random_uuid(),
  client_id    uuid NOT NULL,
  token_hash   text NOT NULL UNIQUE,
  created_by   text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL,
  revoked_at   timestamptz,
  last_used_at timestamptz,
  upload_count integer NOT NULL DEFAULT 0 CHECK (upload_count >= 0),
  max_uploads  integer NOT NULL DEFAULT 20 CHECK (max_uploads >= 1),
  PRIMARY KEY (business_id, id),
  FOREIGN KEY (business_id, client_id) REFERENCES clients (business_id, id)
);
CREATE INDEX upload_sessions_client ON upload_sessions (business_id, client_id, created_at);

CREATE TABLE client_files (
  business_id       uuid NOT NULL REFERENCES businesses (id),
  id                uuid NOT NULL DEFAULT gen_random_uuid(),
  client_id         uuid NOT NULL,
  file_name         text NOT NULL,
  file_type         text NOT NULL,
  file_size         bigint NOT NULL CHECK (file_size >= 0),
  storage_key       text NOT NULL,
  upload_session_id uuid,
  created_by        text NOT NULL,
  created_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (business_id, id),
  UNIQUE (business_id, client_id, file_name),
  FOREIGN KEY (business_id, client_id) REFERENCES clients (business_id, id),
  FOREIGN KEY (business_id, upload_session_id) REFERENCES upload_sessions (business_id, id)
);

-- Replays of a write with the same Idempotency-Key answer the stored response; a different
-- request under the same key is refused (checked against a hash of the request).
CREATE TABLE idempotency_keys (
  business_id   uuid NOT NULL REFERENCES businesses (id),
  key           text NOT NULL,
  request_hash  text NOT NULL,
  status_code   integer NOT NULL,
  response      jsonb NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (business_id, key)
);

CREATE TABLE audit_log (
  business_id     uuid NOT NULL REFERENCES businesses (id),
  id              uuid NOT NULL DEFAULT gen_random_uuid(),
  table_name      text NOT NULL,
  action          text NOT NULL CHECK (action IN ('INSERT', 'UPDATE', 'DELETE')),
  record_id       uuid NOT NULL,
  old_data        jsonb,
  new_data        jsonb,
  branch_id       uuid,
  actor           text NOT NULL,
  impersonated_by text,
  changed_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (business_id, id)
);
CREATE INDEX audit_log_recent ON audit_log (business_id, changed_at DESC, id DESC);
CREATE INDEX audit_log_table ON audit_log (business_id, table_name, changed_at DESC, id DESC);

-- The audit trigger: every write to an audited table leaves its row in the same transaction.
-- The actor is what the application set with set_config('app.actor', …, true); a write made
-- outside the application is still logged, as the database user.
CREATE FUNCTION audit_row() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  old_j jsonb := CASE WHEN TG_OP IN ('UPDATE', 'DELETE') THEN to_jsonb(OLD) END;
  new_j jsonb := CASE WHEN TG_OP IN ('INSERT', 'UPDATE') THEN to_jsonb(NEW) END;
  row_j jsonb := coalesce(new_j, old_j);
BEGIN
  -- secrets and storage paths never reach the log
  old_j := old_j - 'token_hash' - 'storage_key';
  new_j := new_j - 'token_hash' - 'storage_key';
  INSERT INTO audit_log (business_id, table_name, action, record_id, old_data, new_data,
                         branch_id, actor, impersonated_by)
  VALUES ((row_j ->> 'business_id')::uuid, TG_TABLE_NAME, TG_OP, (row_j ->> 'id')::uuid, old_j, new_j,
          CASE WHEN TG_TABLE_NAME = 'branches' THEN (row_j ->> 'id')::uuid
               ELSE (row_j ->> 'branch_id')::uuid END,
          coalesce(nullif(current_setting('app.actor', true), ''), 'db:' || current_user),
          nullif(current_setting('app.impersonated_by', true), ''));
  RETURN NULL;
END $$;

CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON clients FOR EACH ROW EXECUTE FUNCTION audit_row();
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON credits FOR EACH ROW EXECUTE FUNCTION audit_row();
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON installments FOR EACH ROW EXECUTE FUNCTION audit_row();
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON ledger FOR EACH ROW EXECUTE FUNCTION audit_row();
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON credit_configs FOR EACH ROW EXECUTE FUNCTION audit_row();
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON branches FOR EACH ROW EXECUTE FUNCTION audit_row();
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON client_files FOR EACH ROW EXECUTE FUNCTION audit_row();
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON upload_sessions FOR EACH ROW EXECUTE FUNCTION audit_row();

-- Append-only tables: the database refuses UPDATE, DELETE and TRUNCATE.
CREATE FUNCTION refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP USING ERRCODE = 'restrict_violation';
END $$;

CREATE TRIGGER append_only BEFORE UPDATE OR DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER append_only_truncate BEFORE TRUNCATE ON audit_log FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();
CREATE TRIGGER append_only BEFORE UPDATE OR DELETE ON ledger FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER append_only_truncate BEFORE TRUNCATE ON ledger FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();

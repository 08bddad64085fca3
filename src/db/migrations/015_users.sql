-- People who sign in (docs/users.md): the users of each business with their role, the platform
-- operators (who belong to no business), the server-side sessions of both, the one-time links
-- that set a password, and the counters that limit failed sign-ins.
--
-- Secrets are never kept in the clear: a password is an argon2id hash (src/services/passwords.ts),
-- a session token, its CSRF token and a set-password token are SHA-256 hashes (each carries 256
-- random bits, so one hash is enough). The audit trigger drops every such column from the images
-- it logs, and from now on logs users and the changes of api_keys too (keys are revoked over HTTP).

CREATE TABLE users (
  business_id     uuid NOT NULL REFERENCES businesses (id),
  id              uuid NOT NULL DEFAULT gen_random_uuid(),
  -- kept lower-case: unique per business whatever case it was typed in
  email           text NOT NULL CHECK (email = lower(email) AND length(email) BETWEEN 3 AND 254),
  name            text CHECK (length(name) <= 200),
  role            text NOT NULL CHECK (role IN ('admin', 'employee', 'viewer')),
  branch_id       uuid,
  password_hash   text,
  password_set_at timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  disabled_at     timestamptz,
  last_login_at   timestamptz,
  PRIMARY KEY (business_id, id),
  FOREIGN KEY (business_id, branch_id) REFERENCES branches (business_id, id)
);
CREATE UNIQUE INDEX users_id ON users (id);
CREATE UNIQUE INDEX users_email ON users (business_id, lower(email));
-- sign-in names an email, not a business: its accounts in every business
CREATE INDEX users_by_email ON users (lower(email));

-- Operators of the platform: no business; they act on one by impersonating one of its users.
CREATE TABLE operators (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email           text NOT NULL CHECK (email = lower(email) AND length(email) BETWEEN 3 AND 254),
  name            text CHECK (length(name) <= 200),
  password_hash   text,
  password_set_at timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  disabled_at     timestamptz,
  last_login_at   timestamptz
);
CREATE UNIQUE INDEX operators_email ON operators (lower(email));

-- A session is a user's (business_id, user_id), an operator's own (operator_id alone), or an
-- impersonation: a user's, started by the operator it names. An operator's own session belongs
-- to no business, so sessions are keyed by their id; the user they name carries its business.
-- Expiry: expires_at is absolute; idle expiry counts from last_seen_at (SESSION_IDLE_MINUTES).
CREATE TABLE sessions (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  token_hash   text NOT NULL UNIQUE,
  csrf_hash    text NOT NULL,
  business_id  uuid REFERENCES businesses (id),
  user_id      uuid,
  operator_id  uuid REFERENCES operators (id) ON DELETE CASCADE,
  created_at   timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  expires_at   timestamptz NOT NULL,
  FOREIGN KEY (business_id, user_id) REFERENCES users (business_id, id) ON DELETE CASCADE,
  CHECK ((business_id IS NULL) = (user_id IS NULL)),
  CHECK (user_id IS NOT NULL OR operator_id IS NOT NULL)
);
CREATE INDEX sessions_user ON sessions (business_id, user_id);
CREATE INDEX sessions_operator ON sessions (operator_id);
CREATE INDEX sessions_expires_at ON sessions (expires_at);

-- A set-password link: for a user or for an operator, valid 72 hours, used once. Issuing a new
-- one for an account voids the older ones.
CREATE TABLE password_tokens (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  token_hash  text NOT NULL UNIQUE,
  business_id uuid REFERENCES businesses (id),
  user_id     uuid,
  operator_id uuid REFERENCES operators (id) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL,
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz,
  FOREIGN KEY (business_id, user_id) REFERENCES users (business_id, id) ON DELETE CASCADE,
  CHECK ((business_id IS NULL) = (user_id IS NULL)),
  CHECK ((user_id IS NULL) <> (operator_id IS NULL))
);
CREATE INDEX password_tokens_user ON password_tokens (business_id, user_id);
CREATE INDEX password_tokens_operator ON password_tokens (operator_id);
CREATE INDEX password_tokens_expires_at ON password_tokens (expires_at);

-- Sign-in attempts per email and per client address in a fixed window (LOGIN_* settings). The
-- subject is hashed ("email:<email>" or "address:<ip>"): what people type into the email field is
-- not kept.
CREATE TABLE login_failures (
  subject_hash      text PRIMARY KEY,
  failures          integer NOT NULL,
  window_started_at timestamptz NOT NULL
);
CREATE INDEX login_failures_window ON login_failures (window_started_at);

-- ---- the audit trigger (migration 006), with every secret column dropped from the images, and
-- an UPDATE that only moved an API key's last_used_at (written once a minute while a key is used)
-- not logged
CREATE OR REPLACE FUNCTION audit_rows() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  who text := coalesce(nullif(current_setting('app.actor', true), ''), 'db:' || current_user);
  impersonator text := nullif(current_setting('app.impersonated_by', true), '');
  own_branch boolean := TG_TABLE_NAME = 'branches';
  secret text[] := '{token_hash,storage_key,key_hash,password_hash,csrf_hash}';
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO audit_log (business_id, table_name, action, record_id, old_data, new_data, branch_id, actor, impersonated_by)
    SELECT (j ->> 'business_id')::uuid, TG_TABLE_NAME, 'INSERT', (j ->> 'id')::uuid, NULL, j - secret,
           (CASE WHEN own_branch THEN j ->> 'id' ELSE j ->> 'branch_id' END)::uuid, who, impersonator
      FROM (SELECT to_jsonb(r) AS j FROM new_rows r) s;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO audit_log (business_id, table_name, action, record_id, old_data, new_data, branch_id, actor, impersonated_by)
    SELECT (n.j ->> 'business_id')::uuid, TG_TABLE_NAME, 'UPDATE', (n.j ->> 'id')::uuid,
           o.j - secret, n.j - secret,
           (CASE WHEN own_branch THEN n.j ->> 'id' ELSE n.j ->> 'branch_id' END)::uuid, who, impersonator
      FROM (SELECT row_number() OVER () AS i, to_jsonb(r) AS j FROM old_rows r) o
      JOIN (SELECT row_number() OVER () AS i, to_jsonb(r) AS j FROM new_rows r) n USING (i)
     WHERE TG_TABLE_NAME <> 'api_keys' OR o.j - 'last_used_at' IS DISTINCT FROM n.j - 'last_used_at'
     ORDER BY i;
  ELSE
    INSERT INTO audit_log (business_id, table_name, action, record_id, old_data, new_data, branch_id, actor, impersonated_by)
    SELECT (j ->> 'business_id')::uuid, TG_TABLE_NAME, 'DELETE', (j ->> 'id')::uuid, j - secret, NULL,
           (CASE WHEN own_branch THEN j ->> 'id' ELSE j ->> 'branch_id' END)::uuid, who, impersonator
      FROM (SELECT to_jsonb(r) AS j FROM old_rows r) s;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER audit_insert AFTER INSERT ON users REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();
CREATE TRIGGER audit_update AFTER UPDATE ON users REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();
CREATE TRIGGER audit_delete AFTER DELETE ON users REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();

-- API keys: a revocation (or any change but last_used_at) and a deletion are logged, with the
-- actor and the operator acting as them. A key's creation is not: every business starts with
-- keys made from the command line, and its log would open with them (the key's record keeps
-- created_at; docs/users.md).
CREATE TRIGGER audit_update AFTER UPDATE ON api_keys REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();
CREATE TRIGGER audit_delete AFTER DELETE ON api_keys REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();

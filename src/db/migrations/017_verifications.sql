-- Client verifications (docs/verification.md): what a registry said about a client's CUIT when
-- someone asked, with the registry's own answer. Written once, never changed.
CREATE TABLE verifications (
  business_id uuid NOT NULL REFERENCES businesses (id),
  id          uuid NOT NULL DEFAULT gen_random_uuid(),
  client_id   uuid NOT NULL,
  source      text NOT NULL CHECK (source IN ('central_bank', 'tax_authority')),
  -- the CUIT asked about, as the client had it then (11 digits, migration 009's shape)
  cuit        text NOT NULL CHECK (cuit ~ '^[0-9]{11}$'),
  status      text NOT NULL CHECK (status IN ('found', 'not_found')),
  -- null when not found
  summary     jsonb,
  -- the registry's answers as received, keyed by the call that gave each
  raw         jsonb NOT NULL,
  -- the actor who asked (api_key:<id>, user:<id>, cli, …)
  created_by  text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (business_id, id),
  FOREIGN KEY (business_id, client_id) REFERENCES clients (business_id, id)
);

-- "a verification of the same source and CUIT younger than VERIFICATION_TTL_HOURS": the newest one
CREATE INDEX verifications_fresh ON verifications (business_id, source, cuit, created_at DESC);
-- a client's verifications, newest first
CREATE INDEX verifications_client ON verifications (business_id, client_id, created_at DESC, id DESC);

-- Audited like every business table: the log names who checked which client, and when.
CREATE TRIGGER audit_insert AFTER INSERT ON verifications REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();
CREATE TRIGGER audit_update AFTER UPDATE ON verifications REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();
CREATE TRIGGER audit_delete AFTER DELETE ON verifications REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();

-- ARCA's login tickets (WSAA): a token and sign that open ARCA's web services until expires_at
-- (about 12 hours). WSAA refuses a second login for the same certificate and service while a
-- ticket is valid, so a ticket must outlive the process that obtained it: every API process (and
-- a restarted one) reads it here before logging in again. Keyed by what the ticket belongs to: the
-- WSAA it came from, the certificate that signed the login (its SHA-256 fingerprint) and the
-- service. Not a business's data: the certificate is the installation's (ARCA_CERT), shared by its
-- businesses. Credentials, so never audited (no trigger: the audit log would copy them) and never
-- answered by the API; each process also keeps the ticket in memory (src/registries/taxAuthority.ts).
CREATE TABLE arca_tickets (
  wsaa_url    text NOT NULL,
  cert_sha256 text NOT NULL,
  service     text NOT NULL,
  cuit        text NOT NULL,
  token       text NOT NULL,
  sign        text NOT NULL,
  expires_at  timestamptz NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (wsaa_url, cert_sha256, service)
);

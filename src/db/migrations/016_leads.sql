-- Leads (docs/leads.md): people who ask a
-- business for a credit through its public form, POST /public/{business_slug}/leads.
--
-- 1. Businesses gain a slug, the name of the business in its public addresses: lowercase ASCII
--    letters and digits in words joined by single hyphens, at most 63 characters, unique. A
--    business inserted without one (the application, the command line, a bench, SQL by hand) gets
--    one from its name, here and only here: accents folded, lowercase (ASCII, whatever the
--    database's locale), every run of other characters one hyphen, at most 50 characters,
--    "business" when nothing is left; when that is taken, "-2", "-3", … after it (one more than
--    the highest number in use). The businesses already there get theirs the same way, oldest
--    first.
-- 2. The leads, audited like every tenant table (migration 006's statement triggers). A lead is
--    "new" until it is converted into a client; the conversion sets converted_client_id and
--    converted_at in the same transaction that creates the client (src/services/leads.ts).

-- ---- 1. slugs
-- COLLATE "C": byte order, so a prefix search (LIKE 'acme-%') is a range of the unique index
ALTER TABLE businesses ADD COLUMN slug text COLLATE "C";

CREATE FUNCTION business_slug(name text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  base text := trim(both '-' from regexp_replace(
    lower(translate(name, 'ÁÀÂÄÃÅÉÈÊËÍÌÎÏÓÒÔÖÕÚÙÛÜÑÇÝáàâäãåéèêëíìîïóòôöõúùûüñçý',
                          'aaaaaaeeeeiiiiooooouuuuncyaaaaaaeeeeiiiiooooouuuuncy')), '[^a-z0-9]+', '-', 'g'));
  n integer;
BEGIN
  base := trim(both '-' from left(base, 50));
  IF base = '' THEN
    base := 'business';
  END IF;
  -- one slug chosen at a time, until the transaction ends: two businesses created at once with
  -- the same name never choose the same slug (the next statement sees what committed before)
  PERFORM pg_advisory_xact_lock(727416, 0);
  IF NOT EXISTS (SELECT 1 FROM businesses WHERE slug = base) THEN
    RETURN base;
  END IF;
  SELECT coalesce(max(CASE WHEN substring(slug FROM length(base) + 2) ~ '^[0-9]{1,9}$'
                           THEN substring(slug FROM length(base) + 2)::integer END), 1) + 1
    INTO n
    FROM businesses
   WHERE slug LIKE base || '-%';
  RETURN base || '-' || n;
END $$;

CREATE FUNCTION business_default_slug() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.slug := business_slug(NEW.name);
  RETURN NEW;
END $$;

CREATE TRIGGER default_slug BEFORE INSERT ON businesses FOR EACH ROW WHEN (NEW.slug IS NULL)
  EXECUTE FUNCTION business_default_slug();

DO $$
DECLARE
  b record;
BEGIN
  FOR b IN SELECT id, name FROM businesses ORDER BY created_at, id LOOP
    UPDATE businesses SET slug = business_slug(b.name) WHERE id = b.id;
  END LOOP;
END $$;

ALTER TABLE businesses ALTER COLUMN slug SET NOT NULL;
ALTER TABLE businesses ADD CONSTRAINT businesses_slug_format
  CHECK (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$' AND length(slug) <= 63);
CREATE UNIQUE INDEX businesses_slug ON businesses (slug);

-- ---- 2. leads
CREATE TABLE leads (
  business_id         uuid NOT NULL REFERENCES businesses (id),
  id                  uuid NOT NULL DEFAULT gen_random_uuid(),
  first_name          text NOT NULL CHECK (length(first_name) BETWEEN 1 AND 100),
  last_name           text NOT NULL CHECK (length(last_name) BETWEEN 1 AND 100),
  dni                 text NOT NULL CHECK (length(dni) BETWEEN 1 AND 32),
  phone               text CHECK (length(phone) <= 40),
  email               text CHECK (length(email) <= 254),
  amount_requested    numeric(14, 2) CHECK (amount_requested > 0),
  message             text CHECK (length(message) <= 2000),
  status              text NOT NULL DEFAULT 'new' CHECK (status IN ('new', 'converted')),
  converted_client_id uuid,
  converted_at        timestamptz,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (business_id, id),
  FOREIGN KEY (business_id, converted_client_id) REFERENCES clients (business_id, id),
  -- converted exactly when it names its client and when
  CHECK ((status = 'converted') = (converted_client_id IS NOT NULL AND converted_at IS NOT NULL)),
  CHECK (converted_client_id IS NOT NULL OR converted_at IS NULL)
);
-- the list, newest first, of all leads or of one status
CREATE INDEX leads_created ON leads (business_id, created_at DESC, id DESC);
CREATE INDEX leads_status ON leads (business_id, status, created_at DESC, id DESC);

CREATE TRIGGER audit_insert AFTER INSERT ON leads REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();
CREATE TRIGGER audit_update AFTER UPDATE ON leads REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();
CREATE TRIGGER audit_delete AFTER DELETE ON leads REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rows();

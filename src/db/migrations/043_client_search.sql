-- The client search (GET /api/clients?q=, the console's Clientes page) read every client of the
-- business: a DNI or CUIT prefix and a part of a name or email, folded for case and accents, in one
-- OR, which no index served (about a second at 100,000 clients, docs/benchmarks.md). Each arm now
-- has an index, and the planner ORs them (a BitmapOr):
--   - a DNI or CUIT prefix: btree indexes with text_pattern_ops, which a LIKE 'prefix%' uses
--     under any collation;
--   - a part of a name or email: a trigram index (pg_trgm) on one folded text holding the first
--     name, the surname, the first name again (so "nombre apellido" and "apellido nombre" are both
--     in it) and, after a separator no one types (chr(1)), the email. The repository searches this
--     same expression (src/db/repositories/clients.ts CLIENT_SEARCH_TEXT): keep them equal.
-- pg_trgm is a trusted extension of PostgreSQL's contrib (13 and later); the embedded database
-- loads it (src/db/connection.ts).
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE INDEX clients_dni_prefix ON clients (business_id, dni text_pattern_ops);
CREATE INDEX clients_cuit_prefix ON clients (business_id, cuit text_pattern_ops) WHERE cuit IS NOT NULL;
-- the operator class is named with the extension's schema: a database whose pg_trgm lives in
-- another schema than the search_path's (a schema per tenant or per test) still finds it
DO $$
DECLARE
  ext_schema text := (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                       WHERE e.extname = 'pg_trgm');
BEGIN
  EXECUTE format($sql$CREATE INDEX clients_search_trgm ON clients USING gin (
    translate(lower(coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || coalesce(first_name, '') || chr(1) || coalesce(email, '')),
              'áàâäéèêëíìîïóòôöúùûüñç', 'aaaaeeeeiiiioooouuuunc')
    %I.gin_trgm_ops)$sql$, ext_schema);
END $$;

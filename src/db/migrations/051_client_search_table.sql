-- The client search's page total at 100,000 clients (docs/benchmarks.md, "The client search's total"):
-- after migration 043 the page itself was quick, but the count of a common surname (about 4,300
-- matches) took 150-250 ms, because a trigram index answers LIKE '%sosa%' only with candidates
-- that PostgreSQL checks again row by row, and each check folded the row's text anew: translate()
-- over lower() of four columns, some 8 microseconds a row on this machine, three quarters of the
-- count's time. A folded text that is stored is checked with a plain LIKE.
--
-- client_search holds, for each client, what a search looks at, folded once when the client is
-- written: the DNI, the CUIT and the text "first last first" chr(1) email (the same text as 043's
-- index: so "nombre apellido" and "apellido nombre" are both in it, and chr(1), which no one types,
-- keeps a fragment from running from the name into the email), and created_at, the list's order.
-- It is narrower than clients (the folded text already made), so counting its matches is quick, and the
-- first page walks its (business_id, created_at, client_id) index newest first and stops at the
-- 25th match (a common name), or sorts the few matches of a rare one (the planner picks by its
-- estimate); the clients rows of the page are then read by key. The repository
-- (src/db/repositories/clients.ts, listClients) reads it; the triggers below keep it: a new table
-- apart from clients rather than a column of clients, so the clients row (the API's Client, the
-- audit log's images, the webhooks) stays as it was. Not audited: it is derived from the audited
-- clients rows.
CREATE TABLE client_search (
  business_id uuid NOT NULL,
  client_id   uuid NOT NULL,
  created_at  timestamptz NOT NULL,
  dni         text NOT NULL,
  cuit        text,
  folded      text NOT NULL,
  PRIMARY KEY (business_id, client_id),
  FOREIGN KEY (business_id, client_id) REFERENCES clients (business_id, id) ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX client_search_created ON client_search (business_id, created_at, client_id);
CREATE INDEX client_search_dni ON client_search (business_id, dni text_pattern_ops);
CREATE INDEX client_search_cuit ON client_search (business_id, cuit text_pattern_ops) WHERE cuit IS NOT NULL;

-- written by statement (one INSERT of many clients, an import, writes all their rows at once);
-- an UPDATE rewrites only the rows whose searched fields changed
CREATE FUNCTION client_search_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO client_search AS s (business_id, client_id, created_at, dni, cuit, folded)
  SELECT n.business_id, n.id, n.created_at, n.dni, n.cuit,
         translate(lower(coalesce(n.first_name, '') || ' ' || coalesce(n.last_name, '') || ' ' || coalesce(n.first_name, '')
                         || chr(1) || coalesce(n.email, '')),
                   'áàâäéèêëíìîïóòôöúùûüñç', 'aaaaeeeeiiiioooouuuunc')
    FROM new_rows n
  ON CONFLICT (business_id, client_id) DO UPDATE
     SET created_at = excluded.created_at, dni = excluded.dni, cuit = excluded.cuit, folded = excluded.folded
   WHERE (s.created_at, s.dni, s.cuit, s.folded) IS DISTINCT FROM (excluded.created_at, excluded.dni, excluded.cuit, excluded.folded);
  RETURN NULL;
END $$;
CREATE TRIGGER client_search_insert AFTER INSERT ON clients REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION client_search_sync();
CREATE TRIGGER client_search_update AFTER UPDATE ON clients REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION client_search_sync();

INSERT INTO client_search (business_id, client_id, created_at, dni, cuit, folded)
SELECT business_id, id, created_at, dni, cuit,
       translate(lower(coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || coalesce(first_name, '')
                       || chr(1) || coalesce(email, '')),
                 'áàâäéèêëíìîïóòôöúùûüñç', 'aaaaeeeeiiiioooouuuunc')
  FROM clients;

-- a part of a name or email: the trigram index, now on the stored text (pg_trgm: migration 043;
-- the operator class named with the extension's schema, as there)
DO $$
DECLARE
  ext_schema text := (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                       WHERE e.extname = 'pg_trgm');
BEGIN
  EXECUTE format('CREATE INDEX client_search_trgm ON client_search USING gin (folded %I.gin_trgm_ops)', ext_schema);
END $$;

-- 043's indexes on clients served only the search, which no longer reads them
DROP INDEX clients_search_trgm;
DROP INDEX clients_dni_prefix;
DROP INDEX clients_cuit_prefix;

-- the planner's figures for the new table now, not when autovacuum comes by: without them it
-- guesses a handful of matches for any name and plans a common one as if it were rare
ANALYZE client_search;

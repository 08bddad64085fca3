-- Statement-level triggers fire once for every statement on their table, whether it changed rows
-- or not. A payment's one write (src/db/repositories/creditChanges.ts) is a statement with a part
-- for each table a change may touch, so most payments run an UPDATE of payments (the reversal), of
-- credits (the status) and often of installments (the statuses) that change nothing. Each still
-- ran audit_rows, which inserted no row into audit_log, whose own count_rows trigger then still
-- took a shard's advisory lock and ran its upsert over nothing (docs/benchmarks.md, "Writes at a
-- lender's pace"). Now each of these functions returns at once when its transition table is empty:
-- what they write for the rows a statement did change is the same as before.

CREATE OR REPLACE FUNCTION audit_rows() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  who text;
  impersonator text;
  own_branch boolean := TG_TABLE_NAME = 'branches';
  secret text[] := '{token_hash,storage_key,key_hash,password_hash,csrf_hash}';
BEGIN
  -- a statement that changed nothing: nothing to log (an UPDATE or INSERT has new_rows, a DELETE old_rows)
  IF TG_OP = 'DELETE' THEN
    IF NOT EXISTS (SELECT FROM old_rows) THEN RETURN NULL; END IF;
  ELSIF NOT EXISTS (SELECT FROM new_rows) THEN
    RETURN NULL;
  END IF;
  who := coalesce(nullif(current_setting('app.actor', true), ''), 'db:' || current_user);
  impersonator := nullif(current_setting('app.impersonated_by', true), '');
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

CREATE OR REPLACE FUNCTION audit_inserted_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT FROM new_rows) THEN RETURN NULL; END IF;
  INSERT INTO audit_log (business_id, table_name, action, record_id, old_data, new_data, branch_id, actor, impersonated_by)
  SELECT r.business_id, TG_TABLE_NAME, 'INSERT', r.id, NULL, to_jsonb(r), r.branch_id,
         coalesce(nullif(current_setting('app.actor', true), ''), 'db:' || current_user),
         nullif(current_setting('app.impersonated_by', true), '')
    FROM new_rows r;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION audit_count() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  start integer;
  s integer;
BEGIN
  -- an INSERT of no audit row (a trigger above logging nothing) counts nothing: no shard to take
  IF NOT EXISTS (SELECT FROM new_rows) THEN RETURN NULL; END IF;
  start := pg_backend_pid() % 64;
  -- a shard no other transaction holds (one this transaction already holds is taken again at once)
  FOR i IN 0 .. 63 LOOP
    IF pg_try_advisory_xact_lock(727411, (start + i) % 64) THEN
      s := (start + i) % 64;
      EXIT;
    END IF;
  END LOOP;
  IF s IS NULL THEN
    -- 64 writing transactions at once: wait for the one holding this backend's shard
    s := start;
    PERFORM pg_advisory_xact_lock(727411, s);
  END IF;
  INSERT INTO audit_log_counts AS c (business_id, table_name, action, shard, n)
  SELECT business_id, table_name, action, s, count(*) FROM new_rows GROUP BY business_id, table_name, action
  ON CONFLICT (business_id, table_name, action, shard) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;

-- keep_balances (the kept balances) returns early the same way since 058, which redefined it

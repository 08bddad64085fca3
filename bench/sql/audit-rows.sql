-- A large audit log for measuring the audit list (docs/benchmarks.md, "Audit list"): :rows entries
-- for the business :bid and :rows / 20 for each other business, spread over 400 days, with the
-- mix of a lending book (mostly ledger and installment rows, a few deletes) and a few entries
-- per record. Written straight into audit_log (one statement a business, counted by the trigger
-- like any insert), with its indexes built again after the load from their own definitions.
--
--   psql "$URL" -v rows=5000000 -v bid="'<business uuid>'" -f bench/sql/audit-rows.sql
\set ON_ERROR_STOP on
\timing on
SET work_mem = '256MB';
SET maintenance_work_mem = '512MB';
SET jit = off;
CREATE TEMP TABLE audit_indexes AS
  SELECT indexrelid::regclass::text AS name, pg_get_indexdef(indexrelid) AS def
    FROM pg_index WHERE indrelid = 'audit_log'::regclass AND NOT indisprimary;
SELECT format('DROP INDEX %s', name) FROM audit_indexes \gexec
ALTER TABLE audit_log DROP CONSTRAINT audit_log_pkey;

INSERT INTO audit_log (business_id, id, table_name, action, record_id, old_data, new_data, branch_id, actor, changed_at)
SELECT b.id, gen_random_uuid(), t.tn, t.ac,
       md5(b.id::text || t.tn || (g / 4))::uuid,
       CASE WHEN t.ac <> 'INSERT' THEN p.j END,
       CASE WHEN t.ac <> 'DELETE' THEN p.j || jsonb_build_object('status', CASE WHEN g % 3 = 0 THEN 'paid' ELSE 'partial' END) END,
       md5('branch' || (g % 20))::uuid,
       'api_key:' || md5(b.id::text)::uuid,
       timestamptz '2024-01-01 00:00:00+00' + (g::float8 / b.n) * interval '400 days'
  FROM (SELECT :bid::uuid AS id, :rows::int AS n
        UNION ALL SELECT id, :rows / 20 FROM businesses WHERE id <> :bid::uuid) b
 CROSS JOIN LATERAL generate_series(1, b.n) g
 CROSS JOIN LATERAL (SELECT (g::bigint * 7919) % 1000 AS r) x
 CROSS JOIN LATERAL (SELECT CASE WHEN r < 550 THEN 'ledger' WHEN r < 900 THEN 'installments' WHEN r < 970 THEN 'credits'
                                 WHEN r < 993 THEN 'clients' WHEN r < 998 THEN 'client_files' WHEN r < 999 THEN 'credit_configs'
                                 ELSE 'branches' END AS tn,
                            CASE WHEN r < 750 OR r BETWEEN 900 AND 949 OR r BETWEEN 970 AND 984 OR r BETWEEN 993 AND 995 THEN 'INSERT'
                                 WHEN r BETWEEN 996 AND 997 THEN 'DELETE' ELSE 'UPDATE' END AS ac) t
 CROSS JOIN LATERAL (SELECT jsonb_build_object('id', md5(b.id::text || t.tn || (g / 4))::uuid, 'business_id', b.id,
                            'amount', round((g % 100000) / 7.0, 2), 'created_by', 'api_key', 'effective_date', date '2024-01-01' + (g % 400),
                            'credit_id', md5('credit' || (g / 24))::uuid, 'installment_id', md5('inst' || (g / 6))::uuid,
                            'created_at', timestamptz '2024-01-01 00:00:00+00' + (g::float8 / b.n) * interval '400 days',
                            'branch_id', md5('branch' || (g % 20))::uuid, 'type', 'payment', 'punitory_part', 0) AS j) p;

ALTER TABLE audit_log ADD PRIMARY KEY (business_id, id);
SELECT def FROM audit_indexes \gexec
VACUUM (ANALYZE) audit_log, audit_log_counts;

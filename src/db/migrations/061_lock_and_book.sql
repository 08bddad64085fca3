-- A payment's lock and its book in one round trip (src/db/repositories/creditBook.ts
-- LOCK_AND_BOOK, docs/lending-engine.md "Round trips of a write"). The book cannot be read by the
-- locking statement itself: a statement reads with the snapshot it started with, so what another
-- payment committed while this one waited for the lock would be missed. A VOLATILE function takes a
-- new snapshot for each statement it runs, so the statement
--
--   SELECT ... FROM lending_lock_credit(...) c CROSS JOIN LATERAL lending_credit_book(..., c.id, ...) b
--
-- locks the credit first (the first function runs to its end before it gives its row), then reads
-- the book with a snapshot taken after the lock: what two statements did, in one round trip.

-- The credit locked (FOR UPDATE), with the audit trigger's settings for the transaction's writer
-- set (migration 006): what the payment's first statement did before, as a function.
CREATE FUNCTION lending_lock_credit(p_business uuid, p_credit uuid, p_actor text, p_impersonated_by text)
RETURNS SETOF credits LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM set_config('app.actor', p_actor, true), set_config('app.impersonated_by', p_impersonated_by, true);
  RETURN QUERY SELECT c.* FROM credits c WHERE c.business_id = p_business AND c.id = p_credit FOR UPDATE OF c;
END $$;

-- The credit's book (CREDIT_BOOK: installments, ledger and payments as JSON, the punitory watermark)
-- and the branches given, share-locked in the order of their ids: CREDIT_BOOK_AND_BRANCHES, read
-- with a snapshot of its own. The columns' names are not the tables': plpgsql would take a column
-- reference for the output variable.
CREATE FUNCTION lending_credit_book(p_business uuid, p_credit uuid, p_branches uuid[])
RETURNS TABLE (book_installments jsonb, book_ledger jsonb, book_payments jsonb, book_posted_through date,
               book_branches json)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  RETURN QUERY
  WITH i AS (SELECT * FROM installments WHERE business_id = p_business AND credit_id = p_credit)
  SELECT
    (SELECT coalesce(jsonb_agg(to_jsonb(i) || jsonb_build_object('amount', i.amount::text, 'principal', i.principal::text,
              'interest', i.interest::text, 'vat', i.vat::text, 'insurance', i.insurance::text,
              'insurance_vat', i.insurance_vat::text, 'fees', i.fees::text, 'fees_vat', i.fees_vat::text,
              'created_at', floor(extract(epoch FROM i.created_at) * 1000),
              'updated_at', floor(extract(epoch FROM i.updated_at) * 1000)) ORDER BY i.number), '[]')
       FROM i),
    (SELECT coalesce(jsonb_agg(to_jsonb(l) || jsonb_build_object('amount', l.amount::text,
              'punitory_part', l.punitory_part::text, 'vat_part', l.vat_part::text,
              'interest_part', l.interest_part::text, 'charge_part', l.charge_part::text,
              'fees_part', l.fees_part::text, 'insurance_part', l.insurance_part::text,
              'created_at', floor(extract(epoch FROM l.created_at) * 1000))
            ORDER BY l.created_at, l.effective_date, CASE l.type WHEN 'installment' THEN 0 WHEN 'punitory' THEN 1 ELSE 2 END,
                     i.number, l.id), '[]')
       FROM ledger l JOIN i ON i.id = l.installment_id
      WHERE l.business_id = p_business AND l.credit_id = p_credit),
    (SELECT coalesce(jsonb_agg(to_jsonb(p) || jsonb_build_object('amount', p.amount::text,
              'created_at', floor(extract(epoch FROM p.created_at) * 1000),
              'reversed_at', floor(extract(epoch FROM p.reversed_at) * 1000))
            ORDER BY p.paid_on, p.created_at, p.id), '[]')
       FROM payments p WHERE p.business_id = p_business AND p.credit_id = p_credit),
    (SELECT a.posted_through FROM credit_accruals a WHERE a.business_id = p_business AND a.credit_id = p_credit),
    (SELECT coalesce(json_agg(json_build_object('id', b.id, 'name', b.name, 'deleted', b.deleted_at IS NOT NULL)), '[]')
       FROM (SELECT x.id, x.name, x.deleted_at FROM branches x WHERE x.business_id = p_business AND x.id = ANY(p_branches)
              ORDER BY x.id FOR SHARE) b);
END $$;

-- A credit's collection charge (docs/domain.md, "Fees and charges"), in SQL: the SQL twin of
-- src/domain/fees.ts collectionChargeOf, written once for the reads that add the charge before it
-- is posted (the portfolio summary, the credit and client documents) and for the month close that
-- posts it. One row when the fees have a collection fee with after_days (the first such), none
-- otherwise: the fixed amount rounded to the cent, its VAT (on the rounded amount, at the credit's
-- vat_rate, only when the fee says vat), their total, and after_days.
--
-- Plain SQL, one SELECT, IMMUTABLE and not STRICT: called in FROM (LATERAL) the planner inlines it
-- as the subquery it is, so the reads' plans are those of the subquery written in place.
CREATE FUNCTION collection_charge(fees jsonb, vat_rate numeric)
  RETURNS TABLE (amount numeric, vat numeric, total numeric, after_days integer)
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  -- the amount's expressions written out (no inner subquery to name them): the body stays the
  -- single level the reads wrote in place
  SELECT round((x ->> 'amount')::numeric, 2),
         CASE WHEN coalesce((x ->> 'vat')::boolean, false)
              THEN round(round((x ->> 'amount')::numeric, 2) * vat_rate, 2) ELSE 0 END,
         round((x ->> 'amount')::numeric, 2)
           + CASE WHEN coalesce((x ->> 'vat')::boolean, false)
                  THEN round(round((x ->> 'amount')::numeric, 2) * vat_rate, 2) ELSE 0 END,
         (x ->> 'after_days')::int
    FROM jsonb_array_elements(fees) x
   WHERE x ->> 'type' = 'collection' AND x ->> 'after_days' IS NOT NULL
   LIMIT 1
$$;

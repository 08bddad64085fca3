-- The disclosed cost of a credit, stored when it is granted (docs/lending-engine.md, "The disclosed
-- cost"): TNA, TEA and CFT as annual rates, fractions to 6 decimals, as src/domain/cost.ts solves
-- them from the schedule as granted, which never changes. Every answer carrying a credit's detail
-- showed them by solving the CFT again (milliseconds of CPU a call); now it reads them.
--
-- NULL tna: not stored (a credit granted before this migration): computed on read as before until
-- `lending backfill-cost` fills it. cft_tea is NULL also when stored: no rate solves the flows.
ALTER TABLE credits
  ADD COLUMN tna numeric,
  ADD COLUMN tea numeric,
  ADD COLUMN cft_tea numeric,
  ADD CONSTRAINT credits_cost_stored CHECK ((tna IS NULL) = (tea IS NULL) AND (tna IS NOT NULL OR cft_tea IS NULL));

-- Filling the figures of an old credit changes nothing a lender sees (the same figures were shown
-- computed): it leaves updated_at alone, so the credit does not come back in the lists with
-- updated_since (migration 014). A trigger's WHEN cannot name NEW as a whole (credits has a generated
-- column), so the comparison without them is the function's; it runs only for a statement that did
-- not set updated_at itself (none of the application's but the backfill). `disbursed`, generated,
-- is not computed yet in a BEFORE trigger: it follows from the columns compared.
CREATE FUNCTION touch_credit_updated_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF to_jsonb(OLD) - '{tna,tea,cft_tea,disbursed}'::text[] IS DISTINCT FROM to_jsonb(NEW) - '{tna,tea,cft_tea,disbursed}'::text[] THEN
    NEW.updated_at := now();
  END IF;
  RETURN NEW;
END $$;

DROP TRIGGER touch_updated_at ON credits;
CREATE TRIGGER touch_updated_at BEFORE UPDATE ON credits FOR EACH ROW
  WHEN (OLD.updated_at IS NOT DISTINCT FROM NEW.updated_at)
  EXECUTE FUNCTION touch_credit_updated_at();

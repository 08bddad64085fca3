-- Lists for synchronisation (docs/api.md, "Sync with updated_since"): GET /api/clients and GET /api/credits?updated_since=.
--
-- 1. updated_at is what a synchronising client trusts to learn of every change, so the database
--    keeps it: every writer of these tables sets updated_at = now() today (edits, a payment or a
--    reversal moving a credit's status, write-off by hand and by the daily run, refinance,
--    cancel), and a statement that changes a row without setting it (a later code path, a repair
--    by hand) gets the transaction's now() from the trigger below. A statement that sets
--    updated_at itself keeps its value (the bench book and tests write history that way). An
--    update that changes nothing leaves updated_at as it was.
-- 2. The list with updated_since is the range updated_at >= $since of one index, in (updated_at,
--    id) order: a page is the first rows of that range, whatever the book's size, and its total is
--    counted from the index alone. The credit list's filters have their own such range: status
--    (credits_status, widened: what it served before is its prefix) and branch_id; client_id goes
--    through credits_client (a handful of rows, then sorted). q on clients filters the range.

CREATE FUNCTION touch_updated_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.updated_at := now();
  RETURN NEW;
END $$;

-- the condition is evaluated without calling the function: statements that set updated_at (all of
-- the application's) pay nothing but the comparison
CREATE TRIGGER touch_updated_at BEFORE UPDATE ON clients FOR EACH ROW
  WHEN (OLD.updated_at IS NOT DISTINCT FROM NEW.updated_at AND OLD IS DISTINCT FROM NEW)
  EXECUTE FUNCTION touch_updated_at();
CREATE TRIGGER touch_updated_at BEFORE UPDATE ON credits FOR EACH ROW
  WHEN (OLD.updated_at IS NOT DISTINCT FROM NEW.updated_at AND OLD IS DISTINCT FROM NEW)
  EXECUTE FUNCTION touch_updated_at();

CREATE INDEX clients_updated ON clients (business_id, updated_at, id);
CREATE INDEX credits_updated ON credits (business_id, updated_at, id);
DROP INDEX credits_status;
CREATE INDEX credits_status ON credits (business_id, status, updated_at, id);
CREATE INDEX credits_branch_updated ON credits (business_id, branch_id, updated_at, id);

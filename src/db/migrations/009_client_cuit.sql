-- A client's tax identity (CUIT/CUIL): 11 digits stored without dashes, the last the mod-11 check
-- digit (src/domain/cuit.ts checks it; the database keeps the shape), unique within the business.
-- Optional: most clients were registered with a dni alone.
ALTER TABLE clients ADD COLUMN cuit text CHECK (cuit ~ '^[0-9]{11}$');
CREATE UNIQUE INDEX clients_cuit ON clients (business_id, cuit) WHERE cuit IS NOT NULL;

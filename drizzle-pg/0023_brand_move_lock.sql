-- A brand's move and the rows written for it at the same time (review finding): the trigger that
-- fills a row's organization read the brand without a lock, so a row inserted while a move was
-- uncommitted took the old organization, and the move's own update of the brand's rows could not
-- see it — the row stayed with the old organization's members. Now the brand is read FOR KEY SHARE,
-- the lock the row's foreign key check takes on it anyway (so writers of one brand never wait for
-- each other, nor for a rename): a move changes organization_id, part of brands_org_slug_unique, so
-- it takes FOR UPDATE, which conflicts. A writer that read the brand first commits before the move
-- goes on (its rows are then moved); one that comes during an uncommitted move waits for it and
-- reads the new organization (READ COMMITTED follows the updated row). The lock comes in the same
-- order for both (the brand row first): no deadlock between them.
-- And a missing brand, under a user's role, answers as another organization's brand does (42501).
CREATE OR REPLACE FUNCTION "aw_organization_from_brand"() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  IF NEW.brand_id IS NULL THEN
    RETURN NEW;
  END IF;
  IF TG_OP = 'UPDATE' AND NEW.brand_id IS NOT DISTINCT FROM OLD.brand_id AND NEW.organization_id IS NOT DISTINCT FROM OLD.organization_id THEN
    RETURN NEW;
  END IF;
  SELECT b.organization_id INTO NEW.organization_id FROM "public"."brands" AS b WHERE b.id = NEW.brand_id FOR KEY SHARE;
  IF NOT FOUND THEN
    -- Under a user's role (/rest/v1 sets it), a brand that does not exist answers as another
    -- organization's does — the row's policy refuses it — so the answer never tells them apart.
    IF current_setting('role', true) IN ('authenticated', 'anon') THEN
      RAISE EXCEPTION 'new row violates row-level security policy for table "%"', TG_TABLE_NAME USING ERRCODE = 'insufficient_privilege';
    END IF;
    RAISE EXCEPTION 'insert or update on table "%" violates foreign key constraint: brand % does not exist', TG_TABLE_NAME, NEW.brand_id
      USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN NEW;
END
$$;

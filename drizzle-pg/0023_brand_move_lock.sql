-- A brand's move and the rows written for it at the same time (review finding): the trigger that
-- fills a row's organization read the brand without a lock, so a row inserted while a move was
-- uncommitted took the old organization, and the move's own update of the brand's rows could not
-- see it — the row stayed with the old organization's members. Now a row's organization is read
-- under a shared per-brand transaction lock and the move takes it exclusively before it moves the
-- brand's rows: a writer already holding it commits first (and its rows are then moved), a later
-- one waits and reads the new organization. Shared, so writers of one brand never wait for each
-- other. (424204: the first key of this lock, pg_advisory_xact_lock(int, int), unused elsewhere.)
-- And a missing brand, under a user's role, answers as another organization's brand does (42501).
CREATE OR REPLACE FUNCTION "aw_organization_from_brand"() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  IF NEW.brand_id IS NULL THEN
    RETURN NEW;
  END IF;
  IF TG_OP = 'UPDATE' AND NEW.brand_id IS NOT DISTINCT FROM OLD.brand_id AND NEW.organization_id IS NOT DISTINCT FROM OLD.organization_id THEN
    RETURN NEW;
  END IF;
  PERFORM pg_advisory_xact_lock_shared(424204, hashtext(CAST(NEW.brand_id AS text)));
  SELECT b.organization_id INTO NEW.organization_id FROM "public"."brands" AS b WHERE b.id = NEW.brand_id;
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
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "aw_brand_organization_moved"() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  t text;
BEGIN
  PERFORM pg_advisory_xact_lock(424204, hashtext(CAST(NEW.id AS text)));
  FOREACH t IN ARRAY TG_ARGV LOOP
    IF to_regclass(format('"public".%I', t)) IS NOT NULL THEN
      EXECUTE format('UPDATE "public".%I SET organization_id = $1 WHERE brand_id = $2 AND organization_id IS DISTINCT FROM $1', t) USING NEW.organization_id, NEW.id;
    END IF;
  END LOOP;
  RETURN NULL;
END
$$;

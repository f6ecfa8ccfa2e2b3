-- updated_at is kept on every update, whichever path writes the row, as the SQLite triggers of
-- drizzle/0004 and 0007 keep it: a write that leaves updated_at as it was gets the time of the
-- transaction (now(), as the column default); a write that sets updated_at itself keeps its value.
-- SQLite does it AFTER UPDATE with a second UPDATE; Postgres sets NEW in a BEFORE trigger.
CREATE FUNCTION "aw_touch_updated_at"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.updated_at IS NOT DISTINCT FROM OLD.updated_at THEN
    NEW.updated_at := now();
  END IF;
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "organizations_updated_at" BEFORE UPDATE ON "public"."organizations" FOR EACH ROW EXECUTE FUNCTION "aw_touch_updated_at"();--> statement-breakpoint
CREATE TRIGGER "brands_updated_at" BEFORE UPDATE ON "public"."brands" FOR EACH ROW EXECUTE FUNCTION "aw_touch_updated_at"();--> statement-breakpoint
CREATE TRIGGER "prompt_sets_updated_at" BEFORE UPDATE ON "public"."prompt_sets" FOR EACH ROW EXECUTE FUNCTION "aw_touch_updated_at"();--> statement-breakpoint
-- is_branded is derived (src/insights/branded.ts) and organization_id is kept from the brand (0001):
-- recomputing either is not an edit of the prompt, so updated_at moves on a change of any other column
-- only. A column added to prompts later joins this list (as in SQLite's drizzle/0007).
CREATE TRIGGER "prompts_updated_at" BEFORE UPDATE OF "id", "prompt_set_id", "brand_id", "text", "category", "is_active", "platforms", "models", "regions", "topic_id", "work_status", "created_at", "updated_at" ON "public"."prompts" FOR EACH ROW EXECUTE FUNCTION "aw_touch_updated_at"();--> statement-breakpoint
CREATE TRIGGER "brand_platforms_updated_at" BEFORE UPDATE ON "public"."brand_platforms" FOR EACH ROW EXECUTE FUNCTION "aw_touch_updated_at"();--> statement-breakpoint
CREATE TRIGGER "suggestions_updated_at" BEFORE UPDATE ON "public"."suggestions" FOR EACH ROW EXECUTE FUNCTION "aw_touch_updated_at"();--> statement-breakpoint
CREATE TRIGGER "webhook_endpoints_updated_at" BEFORE UPDATE ON "public"."webhook_endpoints" FOR EACH ROW EXECUTE FUNCTION "aw_touch_updated_at"();

-- The rollup tables and prompt_results_latest are written by the triggers of their raw rows
-- (src/rollups/triggers.pg.ts, src/results/latest.pg.ts), which copy each bucket's organization_id
-- from the raw rows they sum (filled from the brand by 0001's trigger). Looking the brand up again for
-- every bucket row was the largest single cost of a batch of results (125k calls for 3,200 results,
-- measured). So on these tables the lookup runs only when the value is missing, or when the write
-- does not come from a trigger (pg_trigger_depth() = 0: a rebuild, an operator's statement), where
-- it still overwrites whatever was given. tests/foundation/pg-schema.test.ts checks the list.
DROP TRIGGER "result_rollups_daily_organization_id" ON "public"."result_rollups_daily";--> statement-breakpoint
CREATE TRIGGER "result_rollups_daily_organization_id" BEFORE INSERT OR UPDATE OF "brand_id", "organization_id" ON "public"."result_rollups_daily" FOR EACH ROW WHEN (NEW.organization_id IS NULL OR pg_trigger_depth() = 0) EXECUTE FUNCTION "aw_organization_from_brand"();--> statement-breakpoint
DROP TRIGGER "result_rollups_monthly_organization_id" ON "public"."result_rollups_monthly";--> statement-breakpoint
CREATE TRIGGER "result_rollups_monthly_organization_id" BEFORE INSERT OR UPDATE OF "brand_id", "organization_id" ON "public"."result_rollups_monthly" FOR EACH ROW WHEN (NEW.organization_id IS NULL OR pg_trigger_depth() = 0) EXECUTE FUNCTION "aw_organization_from_brand"();--> statement-breakpoint
DROP TRIGGER "result_brand_daily_organization_id" ON "public"."result_brand_daily";--> statement-breakpoint
CREATE TRIGGER "result_brand_daily_organization_id" BEFORE INSERT OR UPDATE OF "brand_id", "organization_id" ON "public"."result_brand_daily" FOR EACH ROW WHEN (NEW.organization_id IS NULL OR pg_trigger_depth() = 0) EXECUTE FUNCTION "aw_organization_from_brand"();--> statement-breakpoint
DROP TRIGGER "domain_rollups_daily_organization_id" ON "public"."domain_rollups_daily";--> statement-breakpoint
CREATE TRIGGER "domain_rollups_daily_organization_id" BEFORE INSERT OR UPDATE OF "brand_id", "organization_id" ON "public"."domain_rollups_daily" FOR EACH ROW WHEN (NEW.organization_id IS NULL OR pg_trigger_depth() = 0) EXECUTE FUNCTION "aw_organization_from_brand"();--> statement-breakpoint
DROP TRIGGER "domain_rollups_monthly_organization_id" ON "public"."domain_rollups_monthly";--> statement-breakpoint
CREATE TRIGGER "domain_rollups_monthly_organization_id" BEFORE INSERT OR UPDATE OF "brand_id", "organization_id" ON "public"."domain_rollups_monthly" FOR EACH ROW WHEN (NEW.organization_id IS NULL OR pg_trigger_depth() = 0) EXECUTE FUNCTION "aw_organization_from_brand"();--> statement-breakpoint
DROP TRIGGER "competitor_running_keys_organization_id" ON "public"."competitor_running_keys";--> statement-breakpoint
CREATE TRIGGER "competitor_running_keys_organization_id" BEFORE INSERT OR UPDATE OF "brand_id", "organization_id" ON "public"."competitor_running_keys" FOR EACH ROW WHEN (NEW.organization_id IS NULL OR pg_trigger_depth() = 0) EXECUTE FUNCTION "aw_organization_from_brand"();--> statement-breakpoint
DROP TRIGGER "competitor_running_organization_id" ON "public"."competitor_running";--> statement-breakpoint
CREATE TRIGGER "competitor_running_organization_id" BEFORE INSERT OR UPDATE OF "brand_id", "organization_id" ON "public"."competitor_running" FOR EACH ROW WHEN (NEW.organization_id IS NULL OR pg_trigger_depth() = 0) EXECUTE FUNCTION "aw_organization_from_brand"();--> statement-breakpoint
DROP TRIGGER "domain_running_keys_organization_id" ON "public"."domain_running_keys";--> statement-breakpoint
CREATE TRIGGER "domain_running_keys_organization_id" BEFORE INSERT OR UPDATE OF "brand_id", "organization_id" ON "public"."domain_running_keys" FOR EACH ROW WHEN (NEW.organization_id IS NULL OR pg_trigger_depth() = 0) EXECUTE FUNCTION "aw_organization_from_brand"();--> statement-breakpoint
DROP TRIGGER "domain_running_organization_id" ON "public"."domain_running";--> statement-breakpoint
CREATE TRIGGER "domain_running_organization_id" BEFORE INSERT OR UPDATE OF "brand_id", "organization_id" ON "public"."domain_running" FOR EACH ROW WHEN (NEW.organization_id IS NULL OR pg_trigger_depth() = 0) EXECUTE FUNCTION "aw_organization_from_brand"();--> statement-breakpoint
DROP TRIGGER "domain_prompt_running_keys_organization_id" ON "public"."domain_prompt_running_keys";--> statement-breakpoint
CREATE TRIGGER "domain_prompt_running_keys_organization_id" BEFORE INSERT OR UPDATE OF "brand_id", "organization_id" ON "public"."domain_prompt_running_keys" FOR EACH ROW WHEN (NEW.organization_id IS NULL OR pg_trigger_depth() = 0) EXECUTE FUNCTION "aw_organization_from_brand"();--> statement-breakpoint
DROP TRIGGER "domain_prompt_running_organization_id" ON "public"."domain_prompt_running";--> statement-breakpoint
CREATE TRIGGER "domain_prompt_running_organization_id" BEFORE INSERT OR UPDATE OF "brand_id", "organization_id" ON "public"."domain_prompt_running" FOR EACH ROW WHEN (NEW.organization_id IS NULL OR pg_trigger_depth() = 0) EXECUTE FUNCTION "aw_organization_from_brand"();--> statement-breakpoint
DROP TRIGGER "url_running_keys_organization_id" ON "public"."url_running_keys";--> statement-breakpoint
CREATE TRIGGER "url_running_keys_organization_id" BEFORE INSERT OR UPDATE OF "brand_id", "organization_id" ON "public"."url_running_keys" FOR EACH ROW WHEN (NEW.organization_id IS NULL OR pg_trigger_depth() = 0) EXECUTE FUNCTION "aw_organization_from_brand"();--> statement-breakpoint
DROP TRIGGER "url_running_organization_id" ON "public"."url_running";--> statement-breakpoint
CREATE TRIGGER "url_running_organization_id" BEFORE INSERT OR UPDATE OF "brand_id", "organization_id" ON "public"."url_running" FOR EACH ROW WHEN (NEW.organization_id IS NULL OR pg_trigger_depth() = 0) EXECUTE FUNCTION "aw_organization_from_brand"();--> statement-breakpoint
DROP TRIGGER "query_running_keys_organization_id" ON "public"."query_running_keys";--> statement-breakpoint
CREATE TRIGGER "query_running_keys_organization_id" BEFORE INSERT OR UPDATE OF "brand_id", "organization_id" ON "public"."query_running_keys" FOR EACH ROW WHEN (NEW.organization_id IS NULL OR pg_trigger_depth() = 0) EXECUTE FUNCTION "aw_organization_from_brand"();--> statement-breakpoint
DROP TRIGGER "query_running_organization_id" ON "public"."query_running";--> statement-breakpoint
CREATE TRIGGER "query_running_organization_id" BEFORE INSERT OR UPDATE OF "brand_id", "organization_id" ON "public"."query_running" FOR EACH ROW WHEN (NEW.organization_id IS NULL OR pg_trigger_depth() = 0) EXECUTE FUNCTION "aw_organization_from_brand"();--> statement-breakpoint
DROP TRIGGER "citation_domain_daily_organization_id" ON "public"."citation_domain_daily";--> statement-breakpoint
CREATE TRIGGER "citation_domain_daily_organization_id" BEFORE INSERT OR UPDATE OF "brand_id", "organization_id" ON "public"."citation_domain_daily" FOR EACH ROW WHEN (NEW.organization_id IS NULL OR pg_trigger_depth() = 0) EXECUTE FUNCTION "aw_organization_from_brand"();--> statement-breakpoint
DROP TRIGGER "traffic_platform_daily_organization_id" ON "public"."traffic_platform_daily";--> statement-breakpoint
CREATE TRIGGER "traffic_platform_daily_organization_id" BEFORE INSERT OR UPDATE OF "brand_id", "organization_id" ON "public"."traffic_platform_daily" FOR EACH ROW WHEN (NEW.organization_id IS NULL OR pg_trigger_depth() = 0) EXECUTE FUNCTION "aw_organization_from_brand"();--> statement-breakpoint
DROP TRIGGER "traffic_visitor_days_organization_id" ON "public"."traffic_visitor_days";--> statement-breakpoint
CREATE TRIGGER "traffic_visitor_days_organization_id" BEFORE INSERT OR UPDATE OF "brand_id", "organization_id" ON "public"."traffic_visitor_days" FOR EACH ROW WHEN (NEW.organization_id IS NULL OR pg_trigger_depth() = 0) EXECUTE FUNCTION "aw_organization_from_brand"();--> statement-breakpoint
DROP TRIGGER "traffic_visitors_daily_organization_id" ON "public"."traffic_visitors_daily";--> statement-breakpoint
CREATE TRIGGER "traffic_visitors_daily_organization_id" BEFORE INSERT OR UPDATE OF "brand_id", "organization_id" ON "public"."traffic_visitors_daily" FOR EACH ROW WHEN (NEW.organization_id IS NULL OR pg_trigger_depth() = 0) EXECUTE FUNCTION "aw_organization_from_brand"();--> statement-breakpoint
DROP TRIGGER "crawler_hourly_organization_id" ON "public"."crawler_hourly";--> statement-breakpoint
CREATE TRIGGER "crawler_hourly_organization_id" BEFORE INSERT OR UPDATE OF "brand_id", "organization_id" ON "public"."crawler_hourly" FOR EACH ROW WHEN (NEW.organization_id IS NULL OR pg_trigger_depth() = 0) EXECUTE FUNCTION "aw_organization_from_brand"();--> statement-breakpoint
DROP TRIGGER "crawler_daily_organization_id" ON "public"."crawler_daily";--> statement-breakpoint
CREATE TRIGGER "crawler_daily_organization_id" BEFORE INSERT OR UPDATE OF "brand_id", "organization_id" ON "public"."crawler_daily" FOR EACH ROW WHEN (NEW.organization_id IS NULL OR pg_trigger_depth() = 0) EXECUTE FUNCTION "aw_organization_from_brand"();--> statement-breakpoint
DROP TRIGGER "crawler_monthly_organization_id" ON "public"."crawler_monthly";--> statement-breakpoint
CREATE TRIGGER "crawler_monthly_organization_id" BEFORE INSERT OR UPDATE OF "brand_id", "organization_id" ON "public"."crawler_monthly" FOR EACH ROW WHEN (NEW.organization_id IS NULL OR pg_trigger_depth() = 0) EXECUTE FUNCTION "aw_organization_from_brand"();--> statement-breakpoint
DROP TRIGGER "crawler_paths_running_keys_organization_id" ON "public"."crawler_paths_running_keys";--> statement-breakpoint
CREATE TRIGGER "crawler_paths_running_keys_organization_id" BEFORE INSERT OR UPDATE OF "brand_id", "organization_id" ON "public"."crawler_paths_running_keys" FOR EACH ROW WHEN (NEW.organization_id IS NULL OR pg_trigger_depth() = 0) EXECUTE FUNCTION "aw_organization_from_brand"();--> statement-breakpoint
DROP TRIGGER "crawler_paths_running_organization_id" ON "public"."crawler_paths_running";--> statement-breakpoint
CREATE TRIGGER "crawler_paths_running_organization_id" BEFORE INSERT OR UPDATE OF "brand_id", "organization_id" ON "public"."crawler_paths_running" FOR EACH ROW WHEN (NEW.organization_id IS NULL OR pg_trigger_depth() = 0) EXECUTE FUNCTION "aw_organization_from_brand"();--> statement-breakpoint
DROP TRIGGER "traffic_pages_daily_organization_id" ON "public"."traffic_pages_daily";--> statement-breakpoint
CREATE TRIGGER "traffic_pages_daily_organization_id" BEFORE INSERT OR UPDATE OF "brand_id", "organization_id" ON "public"."traffic_pages_daily" FOR EACH ROW WHEN (NEW.organization_id IS NULL OR pg_trigger_depth() = 0) EXECUTE FUNCTION "aw_organization_from_brand"();--> statement-breakpoint
DROP TRIGGER "traffic_pages_monthly_organization_id" ON "public"."traffic_pages_monthly";--> statement-breakpoint
CREATE TRIGGER "traffic_pages_monthly_organization_id" BEFORE INSERT OR UPDATE OF "brand_id", "organization_id" ON "public"."traffic_pages_monthly" FOR EACH ROW WHEN (NEW.organization_id IS NULL OR pg_trigger_depth() = 0) EXECUTE FUNCTION "aw_organization_from_brand"();--> statement-breakpoint
DROP TRIGGER "prompt_results_latest_organization_id" ON "public"."prompt_results_latest";--> statement-breakpoint
CREATE TRIGGER "prompt_results_latest_organization_id" BEFORE INSERT OR UPDATE OF "brand_id", "organization_id" ON "public"."prompt_results_latest" FOR EACH ROW WHEN (NEW.organization_id IS NULL OR pg_trigger_depth() = 0) EXECUTE FUNCTION "aw_organization_from_brand"();

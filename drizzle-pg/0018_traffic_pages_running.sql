-- Issue #32: landing pages as running totals (two seeks per page whatever the window), replacing the
-- day and month buckets; rebuilt from ai_traffic_logs by the next start (src/rollups/triggers.pg.ts).
-- The buckets stay, kept by their triggers, until no instance of an older release runs (retirePgRollups).
CREATE TABLE "traffic_pages_running" (
	"brand_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"platform" text NOT NULL,
	"path" text NOT NULL,
	"day" text NOT NULL,
	"visits" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "traffic_pages_running_brand_id_platform_path_day_pk" PRIMARY KEY("brand_id","platform","path","day")
);
--> statement-breakpoint
CREATE TABLE "traffic_pages_running_keys" (
	"brand_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"platform" text NOT NULL,
	"path" text NOT NULL,
	"rows" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "traffic_pages_running_keys_brand_id_platform_path_pk" PRIMARY KEY("brand_id","platform","path")
);
--> statement-breakpoint
ALTER TABLE "traffic_pages_running" ADD CONSTRAINT "traffic_pages_running_brand_id_brands_id_fk" FOREIGN KEY ("brand_id") REFERENCES "public"."brands"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "traffic_pages_running_keys" ADD CONSTRAINT "traffic_pages_running_keys_brand_id_brands_id_fk" FOREIGN KEY ("brand_id") REFERENCES "public"."brands"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "traffic_pages_running_org_idx" ON "traffic_pages_running" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "traffic_pages_running_keys_org_idx" ON "traffic_pages_running_keys" USING btree ("organization_id");--> statement-breakpoint
-- A rollup's organization comes with its bucket rows (drizzle-pg/0006): looked up only when missing.
CREATE TRIGGER "traffic_pages_running_organization_id" BEFORE INSERT OR UPDATE OF "brand_id", "organization_id" ON "public"."traffic_pages_running" FOR EACH ROW WHEN (NEW.organization_id IS NULL OR pg_trigger_depth() = 0) EXECUTE FUNCTION "aw_organization_from_brand"();--> statement-breakpoint
CREATE TRIGGER "traffic_pages_running_keys_organization_id" BEFORE INSERT OR UPDATE OF "brand_id", "organization_id" ON "public"."traffic_pages_running_keys" FOR EACH ROW WHEN (NEW.organization_id IS NULL OR pg_trigger_depth() = 0) EXECUTE FUNCTION "aw_organization_from_brand"();--> statement-breakpoint
DROP TRIGGER "brands_organization_moved" ON "public"."brands";--> statement-breakpoint
CREATE TRIGGER "brands_organization_moved" AFTER UPDATE OF "organization_id" ON "public"."brands" FOR EACH ROW WHEN (OLD.organization_id IS DISTINCT FROM NEW.organization_id)
  EXECUTE FUNCTION "aw_brand_organization_moved"('brand_domains', 'competitors', 'prompt_sets', 'topics', 'prompts', 'brand_platforms', 'job_units', 'prompt_results', 'citations', 'prompt_results_latest', 'suggestions', 'ai_traffic_logs', 'result_rollups_daily', 'result_rollups_monthly', 'result_brand_daily', 'result_brand_weekly', 'domain_rollups_monthly', 'competitor_running', 'competitor_running_keys', 'domain_running', 'domain_running_keys', 'domain_prompt_running', 'domain_prompt_running_keys', 'url_running', 'url_running_keys', 'query_running', 'query_running_keys', 'citation_domain_daily', 'traffic_platform_daily', 'traffic_visitor_days', 'traffic_visitors_daily', 'traffic_platform_weekly', 'traffic_visitors_weekly', 'traffic_pages_running', 'traffic_pages_running_keys', 'crawler_hits', 'crawler_bots', 'crawler_daily', 'crawler_monthly', 'crawler_weekly', 'crawler_paths_running', 'crawler_paths_running_keys', 'jobs', 'share_links', 'webhook_endpoints', 'webhook_events', 'digest_subscriptions', 'digest_runs');

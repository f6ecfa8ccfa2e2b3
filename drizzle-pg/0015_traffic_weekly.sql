CREATE TABLE "traffic_platform_weekly" (
	"brand_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"week" text NOT NULL,
	"platform" text NOT NULL,
	"visits" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "traffic_platform_weekly_brand_id_week_platform_pk" PRIMARY KEY("brand_id","week","platform")
);
--> statement-breakpoint
CREATE TABLE "traffic_visitors_weekly" (
	"brand_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"week" text NOT NULL,
	"platform" text NOT NULL,
	"visitors" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "traffic_visitors_weekly_brand_id_week_platform_pk" PRIMARY KEY("brand_id","week","platform")
);
--> statement-breakpoint
ALTER TABLE "traffic_platform_weekly" ADD CONSTRAINT "traffic_platform_weekly_brand_id_brands_id_fk" FOREIGN KEY ("brand_id") REFERENCES "public"."brands"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "traffic_visitors_weekly" ADD CONSTRAINT "traffic_visitors_weekly_brand_id_brands_id_fk" FOREIGN KEY ("brand_id") REFERENCES "public"."brands"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "traffic_platform_weekly_org_idx" ON "traffic_platform_weekly" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "traffic_visitors_weekly_org_idx" ON "traffic_visitors_weekly" USING btree ("organization_id");--> statement-breakpoint
-- A rollup's organization comes with its bucket rows (drizzle-pg/0006): looked up only when missing.
CREATE TRIGGER "traffic_platform_weekly_organization_id" BEFORE INSERT OR UPDATE OF "brand_id", "organization_id" ON "public"."traffic_platform_weekly" FOR EACH ROW WHEN (NEW.organization_id IS NULL OR pg_trigger_depth() = 0) EXECUTE FUNCTION "aw_organization_from_brand"();--> statement-breakpoint
CREATE TRIGGER "traffic_visitors_weekly_organization_id" BEFORE INSERT OR UPDATE OF "brand_id", "organization_id" ON "public"."traffic_visitors_weekly" FOR EACH ROW WHEN (NEW.organization_id IS NULL OR pg_trigger_depth() = 0) EXECUTE FUNCTION "aw_organization_from_brand"();--> statement-breakpoint
DROP TRIGGER "brands_organization_moved" ON "public"."brands";--> statement-breakpoint
CREATE TRIGGER "brands_organization_moved" AFTER UPDATE OF "organization_id" ON "public"."brands" FOR EACH ROW WHEN (OLD.organization_id IS DISTINCT FROM NEW.organization_id)
  EXECUTE FUNCTION "aw_brand_organization_moved"('brand_domains', 'competitors', 'prompt_sets', 'topics', 'prompts', 'brand_platforms', 'job_units', 'prompt_results', 'citations', 'prompt_results_latest', 'suggestions', 'ai_traffic_logs', 'result_rollups_daily', 'result_rollups_monthly', 'result_brand_daily', 'result_brand_weekly', 'domain_rollups_daily', 'domain_rollups_monthly', 'competitor_running', 'competitor_running_keys', 'domain_running', 'domain_running_keys', 'domain_prompt_running', 'domain_prompt_running_keys', 'url_running', 'url_running_keys', 'query_running', 'query_running_keys', 'citation_domain_daily', 'traffic_platform_daily', 'traffic_visitor_days', 'traffic_visitors_daily', 'traffic_platform_weekly', 'traffic_visitors_weekly', 'traffic_pages_daily', 'traffic_pages_monthly', 'crawler_hits', 'crawler_bots', 'crawler_daily', 'crawler_monthly', 'crawler_weekly', 'crawler_paths_running', 'crawler_paths_running_keys', 'jobs', 'share_links', 'webhook_endpoints', 'webhook_events', 'digest_subscriptions', 'digest_runs');

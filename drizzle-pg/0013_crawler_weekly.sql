CREATE TABLE "crawler_weekly" (
	"brand_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"week" text NOT NULL,
	"bot" text NOT NULL,
	"class" text NOT NULL,
	"verdict" text NOT NULL,
	"requests" integer DEFAULT 0 NOT NULL,
	"pages" integer DEFAULT 0 NOT NULL,
	"refused" integer DEFAULT 0 NOT NULL,
	"not_found" integer DEFAULT 0 NOT NULL,
	"server_errors" integer DEFAULT 0 NOT NULL,
	"bytes" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "crawler_weekly_brand_id_week_bot_class_verdict_pk" PRIMARY KEY("brand_id","week","bot","class","verdict")
);
--> statement-breakpoint
ALTER TABLE "crawler_weekly" ADD CONSTRAINT "crawler_weekly_brand_id_brands_id_fk" FOREIGN KEY ("brand_id") REFERENCES "public"."brands"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "crawler_weekly_org_idx" ON "crawler_weekly" USING btree ("organization_id");--> statement-breakpoint
-- A rollup's organization comes with its bucket rows (drizzle-pg/0006): looked up only when missing.
CREATE TRIGGER "crawler_weekly_organization_id" BEFORE INSERT OR UPDATE OF "brand_id", "organization_id" ON "public"."crawler_weekly" FOR EACH ROW WHEN (NEW.organization_id IS NULL OR pg_trigger_depth() = 0) EXECUTE FUNCTION "aw_organization_from_brand"();--> statement-breakpoint
DROP TRIGGER "brands_organization_moved" ON "public"."brands";--> statement-breakpoint
CREATE TRIGGER "brands_organization_moved" AFTER UPDATE OF "organization_id" ON "public"."brands" FOR EACH ROW WHEN (OLD.organization_id IS DISTINCT FROM NEW.organization_id)
  EXECUTE FUNCTION "aw_brand_organization_moved"('brand_domains', 'competitors', 'prompt_sets', 'topics', 'prompts', 'brand_platforms', 'job_units', 'prompt_results', 'citations', 'prompt_results_latest', 'suggestions', 'ai_traffic_logs', 'result_rollups_daily', 'result_rollups_monthly', 'result_brand_daily', 'domain_rollups_daily', 'domain_rollups_monthly', 'competitor_running', 'competitor_running_keys', 'domain_running', 'domain_running_keys', 'domain_prompt_running', 'domain_prompt_running_keys', 'url_running', 'url_running_keys', 'query_running', 'query_running_keys', 'citation_domain_daily', 'traffic_platform_daily', 'traffic_visitor_days', 'traffic_visitors_daily', 'traffic_pages_daily', 'traffic_pages_monthly', 'crawler_hits', 'crawler_bots', 'crawler_daily', 'crawler_monthly', 'crawler_weekly', 'crawler_paths_running', 'crawler_paths_running_keys', 'jobs', 'share_links', 'webhook_endpoints', 'webhook_events', 'digest_subscriptions', 'digest_runs');

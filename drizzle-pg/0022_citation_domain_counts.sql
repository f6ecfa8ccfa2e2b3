-- Issue #32 (see drizzle/0028): the brand's citations per cited domain, all time, for REST counts;
-- filled at the first start from the raw rows (a rollup new to rollup_state is rebuilt).
-- citation_domain_daily is retired, not dropped: kept current while an older instance still reads
-- it, dropped once none runs (src/rollups/triggers.pg.ts).
CREATE TABLE "citation_domain_counts" (
	"brand_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"domain" text NOT NULL,
	"citations" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "citation_domain_counts_brand_id_domain_pk" PRIMARY KEY("brand_id","domain")
);
--> statement-breakpoint
ALTER TABLE "citation_domain_counts" ADD CONSTRAINT "citation_domain_counts_brand_id_brands_id_fk" FOREIGN KEY ("brand_id") REFERENCES "public"."brands"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "citation_domain_counts_org_idx" ON "citation_domain_counts" USING btree ("organization_id");
--> statement-breakpoint
-- A rollup's organization comes with its bucket rows (drizzle-pg/0006): looked up only when missing.
CREATE TRIGGER "citation_domain_counts_organization_id" BEFORE INSERT OR UPDATE OF "brand_id", "organization_id" ON "public"."citation_domain_counts" FOR EACH ROW WHEN (NEW.organization_id IS NULL OR pg_trigger_depth() = 0) EXECUTE FUNCTION "aw_organization_from_brand"();--> statement-breakpoint
DROP TRIGGER "brands_organization_moved" ON "public"."brands";--> statement-breakpoint
CREATE TRIGGER "brands_organization_moved" AFTER UPDATE OF "organization_id" ON "public"."brands" FOR EACH ROW WHEN (OLD.organization_id IS DISTINCT FROM NEW.organization_id)
  EXECUTE FUNCTION "aw_brand_organization_moved"('brand_domains', 'competitors', 'prompt_sets', 'topics', 'prompts', 'brand_platforms', 'job_units', 'prompt_results', 'citations', 'prompt_results_latest', 'suggestions', 'ai_traffic_logs', 'result_rollups_daily', 'result_rollups_monthly', 'result_brand_daily', 'result_brand_weekly', 'domain_rollups_monthly', 'competitor_totals_keys', 'domain_totals_keys', 'domain_prompt_totals_keys', 'url_totals_keys', 'query_totals_keys', 'competitor_running', 'competitor_running_keys', 'domain_running', 'domain_running_keys', 'domain_prompt_running', 'domain_prompt_running_keys', 'url_running', 'url_running_keys', 'query_running', 'query_running_keys', 'citation_domain_counts', 'traffic_platform_daily', 'traffic_visitor_days', 'traffic_visitors_daily', 'traffic_platform_weekly', 'traffic_visitors_weekly', 'traffic_page_totals_keys', 'crawler_hits', 'crawler_bots', 'crawler_daily', 'crawler_monthly', 'crawler_weekly', 'crawler_path_totals_keys', 'jobs', 'share_links', 'webhook_endpoints', 'webhook_events', 'digest_subscriptions', 'digest_runs');

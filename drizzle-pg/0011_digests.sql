CREATE TABLE "digest_runs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"brand_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"period" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "digest_subscriptions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"brand_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"frequency" text DEFAULT 'none' NOT NULL,
	"alerts" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "mail_outbox" ADD COLUMN "headers" text;--> statement-breakpoint
ALTER TABLE "mail_outbox" ADD COLUMN "attachments" text;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "logo" text;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "format" text DEFAULT 'standard' NOT NULL;--> statement-breakpoint
ALTER TABLE "digest_runs" ADD CONSTRAINT "digest_runs_brand_id_brands_id_fk" FOREIGN KEY ("brand_id") REFERENCES "public"."brands"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "digest_subscriptions" ADD CONSTRAINT "digest_subscriptions_brand_id_brands_id_fk" FOREIGN KEY ("brand_id") REFERENCES "public"."brands"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "digest_subscriptions" ADD CONSTRAINT "digest_subscriptions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "auth"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "digest_runs_period_unique" ON "digest_runs" USING btree ("brand_id","period");--> statement-breakpoint
CREATE INDEX "digest_runs_org_idx" ON "digest_runs" USING btree ("organization_id");--> statement-breakpoint
CREATE UNIQUE INDEX "digest_subscriptions_pair_unique" ON "digest_subscriptions" USING btree ("user_id","brand_id");--> statement-breakpoint
CREATE INDEX "digest_subscriptions_brand_idx" ON "digest_subscriptions" USING btree ("brand_id");--> statement-breakpoint
CREATE INDEX "digest_subscriptions_org_idx" ON "digest_subscriptions" USING btree ("organization_id");--> statement-breakpoint
-- The digest tables are a brand's: their organization is the brand's, kept as 0001 keeps the others'.
CREATE TRIGGER "digest_subscriptions_organization_id" BEFORE INSERT OR UPDATE OF "brand_id", "organization_id" ON "public"."digest_subscriptions" FOR EACH ROW EXECUTE FUNCTION "aw_organization_from_brand"();--> statement-breakpoint
CREATE TRIGGER "digest_runs_organization_id" BEFORE INSERT OR UPDATE OF "brand_id", "organization_id" ON "public"."digest_runs" FOR EACH ROW EXECUTE FUNCTION "aw_organization_from_brand"();--> statement-breakpoint
DROP TRIGGER "brands_organization_moved" ON "public"."brands";--> statement-breakpoint
CREATE TRIGGER "brands_organization_moved" AFTER UPDATE OF "organization_id" ON "public"."brands" FOR EACH ROW WHEN (OLD.organization_id IS DISTINCT FROM NEW.organization_id)
  EXECUTE FUNCTION "aw_brand_organization_moved"('brand_domains', 'competitors', 'prompt_sets', 'topics', 'prompts', 'brand_platforms', 'job_units', 'prompt_results', 'citations', 'prompt_results_latest', 'suggestions', 'ai_traffic_logs', 'result_rollups_daily', 'result_rollups_monthly', 'result_brand_daily', 'domain_rollups_daily', 'domain_rollups_monthly', 'competitor_running', 'competitor_running_keys', 'domain_running', 'domain_running_keys', 'domain_prompt_running', 'domain_prompt_running_keys', 'url_running', 'url_running_keys', 'query_running', 'query_running_keys', 'citation_domain_daily', 'traffic_platform_daily', 'traffic_visitor_days', 'traffic_visitors_daily', 'traffic_pages_daily', 'traffic_pages_monthly', 'crawler_hits', 'crawler_bots', 'crawler_hourly', 'crawler_daily', 'crawler_monthly', 'crawler_paths_running', 'crawler_paths_running_keys', 'jobs', 'share_links', 'webhook_endpoints', 'webhook_events', 'digest_subscriptions', 'digest_runs');

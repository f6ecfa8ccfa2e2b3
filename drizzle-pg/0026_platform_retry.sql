ALTER TABLE "brand_platforms" ADD COLUMN "failed_runs" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "brand_platforms" ADD COLUMN "retry_at" timestamp with time zone;
ALTER TABLE `brand_platforms` ADD `failed_runs` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `brand_platforms` ADD `retry_at` text;
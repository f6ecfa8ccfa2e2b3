-- Issue #32: landing pages as running totals (two seeks per page whatever the window: a year by week
-- costs what a month does), born WITHOUT ROWID; rebuilt from ai_traffic_logs at the first start.
CREATE TABLE `traffic_pages_running` (
	`brand_id` text NOT NULL,
	`platform` text NOT NULL,
	`path` text NOT NULL,
	`day` text NOT NULL,
	`visits` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`brand_id`, `platform`, `path`, `day`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `traffic_pages_running_keys` (
	`brand_id` text NOT NULL,
	`platform` text NOT NULL,
	`path` text NOT NULL,
	`rows` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`brand_id`, `platform`, `path`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
-- The day and month buckets the running totals replace are retired, not dropped here (dropping
-- reads every page): they go at start when small, else with `answerwatch vacuum --full`
-- (src/rollups/triggers.sqlite.ts RETIRED_ROLLUPS).
SELECT 1;
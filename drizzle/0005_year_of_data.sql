CREATE TABLE `citation_domain_daily` (
	`brand_id` text NOT NULL,
	`day` text NOT NULL,
	`domain` text NOT NULL,
	`citations` integer DEFAULT 0 NOT NULL,
	`brand_citations` integer DEFAULT 0 NOT NULL,
	`competitor_citations` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`brand_id`, `day`, `domain`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `competitor_daily` (
	`brand_id` text NOT NULL,
	`day` text NOT NULL,
	`platform` text NOT NULL,
	`competitor_id` text NOT NULL,
	`results` integer DEFAULT 0 NOT NULL,
	`mentions` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`brand_id`, `day`, `platform`, `competitor_id`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `prompt_results_latest` (
	`prompt_id` text NOT NULL,
	`platform` text NOT NULL,
	`model` text NOT NULL,
	`region` text NOT NULL,
	`brand_id` text NOT NULL,
	`result_id` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`prompt_id`, `platform`, `model`, `region`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `prompt_results_latest_brand_idx` ON `prompt_results_latest` (`brand_id`,`platform`);--> statement-breakpoint
CREATE TABLE `result_brand_daily` (
	`brand_id` text NOT NULL,
	`day` text NOT NULL,
	`platform` text NOT NULL,
	`model` text NOT NULL,
	`region` text NOT NULL,
	`results` integer DEFAULT 0 NOT NULL,
	`mentioned` integer DEFAULT 0 NOT NULL,
	`mention_sum` integer DEFAULT 0 NOT NULL,
	`position_sum` integer DEFAULT 0 NOT NULL,
	`position_n` integer DEFAULT 0 NOT NULL,
	`cited` integer DEFAULT 0 NOT NULL,
	`citation_sum` integer DEFAULT 0 NOT NULL,
	`brand_citation_sum` integer DEFAULT 0 NOT NULL,
	`competitor_mention_sum` integer DEFAULT 0 NOT NULL,
	`sentiment_sum` real DEFAULT 0 NOT NULL,
	`sentiment_n` integer DEFAULT 0 NOT NULL,
	`positive` integer DEFAULT 0 NOT NULL,
	`neutral` integer DEFAULT 0 NOT NULL,
	`negative` integer DEFAULT 0 NOT NULL,
	`visibility_sum` real DEFAULT 0 NOT NULL,
	`visibility_n` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`brand_id`, `day`, `platform`, `model`, `region`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `result_rollups_daily` (
	`brand_id` text NOT NULL,
	`day` text NOT NULL,
	`prompt_id` text NOT NULL,
	`platform` text NOT NULL,
	`model` text NOT NULL,
	`region` text NOT NULL,
	`results` integer DEFAULT 0 NOT NULL,
	`mentioned` integer DEFAULT 0 NOT NULL,
	`mention_sum` integer DEFAULT 0 NOT NULL,
	`position_sum` integer DEFAULT 0 NOT NULL,
	`position_n` integer DEFAULT 0 NOT NULL,
	`cited` integer DEFAULT 0 NOT NULL,
	`citation_sum` integer DEFAULT 0 NOT NULL,
	`brand_citation_sum` integer DEFAULT 0 NOT NULL,
	`competitor_mention_sum` integer DEFAULT 0 NOT NULL,
	`sentiment_sum` real DEFAULT 0 NOT NULL,
	`sentiment_n` integer DEFAULT 0 NOT NULL,
	`positive` integer DEFAULT 0 NOT NULL,
	`neutral` integer DEFAULT 0 NOT NULL,
	`negative` integer DEFAULT 0 NOT NULL,
	`visibility_sum` real DEFAULT 0 NOT NULL,
	`visibility_n` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`brand_id`, `day`, `prompt_id`, `platform`, `model`, `region`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `result_rollups_daily_prompt_idx` ON `result_rollups_daily` (`prompt_id`,`day`);--> statement-breakpoint
CREATE TABLE `rollup_state` (
	`name` text PRIMARY KEY NOT NULL,
	`hash` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `traffic_pages_daily` (
	`brand_id` text NOT NULL,
	`day` text NOT NULL,
	`platform` text NOT NULL,
	`path` text NOT NULL,
	`visits` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`brand_id`, `day`, `platform`, `path`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `traffic_pages_monthly` (
	`brand_id` text NOT NULL,
	`month` text NOT NULL,
	`platform` text NOT NULL,
	`path` text NOT NULL,
	`visits` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`brand_id`, `month`, `platform`, `path`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `traffic_platform_daily` (
	`brand_id` text NOT NULL,
	`day` text NOT NULL,
	`platform` text NOT NULL,
	`visits` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`brand_id`, `day`, `platform`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `traffic_visitor_days` (
	`brand_id` text NOT NULL,
	`day` text NOT NULL,
	`platform` text NOT NULL,
	`visitor_hash` text NOT NULL,
	`visits` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`brand_id`, `day`, `platform`, `visitor_hash`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `traffic_visitors_daily` (
	`brand_id` text NOT NULL,
	`day` text NOT NULL,
	`platform` text NOT NULL,
	`visitors` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`brand_id`, `day`, `platform`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
DROP INDEX `prompt_results_latest_idx`;--> statement-breakpoint
CREATE INDEX `prompt_results_group_time_idx` ON `prompt_results` (`prompt_id`,`platform`,`model`,`region`,`created_at`);--> statement-breakpoint
CREATE INDEX `prompt_results_brand_time_idx` ON `prompt_results` (`brand_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `prompt_results_brand_platform_time_idx` ON `prompt_results` (`brand_id`,`platform`,`created_at`);--> statement-breakpoint
CREATE INDEX `citations_brand_time_idx` ON `citations` (`brand_id`,`created_at`);

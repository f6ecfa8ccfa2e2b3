CREATE TABLE `competitor_running` (
	`brand_id` text NOT NULL,
	`prompt_id` text NOT NULL,
	`platform` text NOT NULL,
	`model` text NOT NULL,
	`region` text NOT NULL,
	`competitor_id` text NOT NULL,
	`day` text NOT NULL,
	`results` integer DEFAULT 0 NOT NULL,
	`mentions` integer DEFAULT 0 NOT NULL,
	`position_sum` integer DEFAULT 0 NOT NULL,
	`position_n` integer DEFAULT 0 NOT NULL,
	`both` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`brand_id`, `prompt_id`, `platform`, `model`, `region`, `competitor_id`, `day`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `competitor_running_keys` (
	`brand_id` text NOT NULL,
	`prompt_id` text NOT NULL,
	`platform` text NOT NULL,
	`model` text NOT NULL,
	`region` text NOT NULL,
	`competitor_id` text NOT NULL,
	`rows` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`brand_id`, `prompt_id`, `platform`, `model`, `region`, `competitor_id`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `domain_prompt_running` (
	`brand_id` text NOT NULL,
	`domain` text NOT NULL,
	`prompt_id` text NOT NULL,
	`day` text NOT NULL,
	`answers` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`brand_id`, `domain`, `prompt_id`, `day`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `domain_prompt_running_keys` (
	`brand_id` text NOT NULL,
	`domain` text NOT NULL,
	`prompt_id` text NOT NULL,
	`rows` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`brand_id`, `domain`, `prompt_id`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `domain_running` (
	`brand_id` text NOT NULL,
	`domain` text NOT NULL,
	`day` text NOT NULL,
	`citations` integer DEFAULT 0 NOT NULL,
	`answers` integer DEFAULT 0 NOT NULL,
	`brand_mentioned` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`brand_id`, `domain`, `day`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `domain_running_keys` (
	`brand_id` text NOT NULL,
	`domain` text NOT NULL,
	`rows` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`brand_id`, `domain`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `query_running` (
	`brand_id` text NOT NULL,
	`platform` text NOT NULL,
	`query` text NOT NULL,
	`day` text NOT NULL,
	`answers` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`brand_id`, `platform`, `query`, `day`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `query_running_keys` (
	`brand_id` text NOT NULL,
	`platform` text NOT NULL,
	`query` text NOT NULL,
	`rows` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`brand_id`, `platform`, `query`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `url_running` (
	`brand_id` text NOT NULL,
	`normalized_url` text NOT NULL,
	`domain` text NOT NULL,
	`day` text NOT NULL,
	`citations` integer DEFAULT 0 NOT NULL,
	`answers` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`brand_id`, `normalized_url`, `domain`, `day`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `url_running_keys` (
	`brand_id` text NOT NULL,
	`normalized_url` text NOT NULL,
	`domain` text NOT NULL,
	`rows` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`brand_id`, `normalized_url`, `domain`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
DROP TRIGGER IF EXISTS `rollup_competitor_rollups_daily_insert`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `rollup_competitor_rollups_daily_delete`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `rollup_competitor_rollups_daily_update`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `rollup_competitor_rollups_monthly_insert`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `rollup_competitor_rollups_monthly_delete`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `rollup_competitor_rollups_monthly_update`;--> statement-breakpoint
DROP TABLE `competitor_rollups_daily`;--> statement-breakpoint
DROP TABLE `competitor_rollups_monthly`;--> statement-breakpoint
CREATE INDEX `citation_urls_normalized_idx` ON `citation_urls` (`normalized_url`);
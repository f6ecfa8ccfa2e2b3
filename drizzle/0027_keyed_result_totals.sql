-- Issue #32: the running totals fed by results keyed by integer, as the log-fed ones were in
-- 0026: competitor_running, domain_running, domain_prompt_running, url_running and query_running kept
-- the brand's UUID and the key's text in every day's row; the `<t>_totals` tables keep per key id and
-- day only the totals, each key once in `<t>_totals_keys`. Their rows move across after the start,
-- a few keys at a time (src/rollups/triggers.sqlite.ts moveFormerRows: ~30 s per million results
-- would not fit an upgrade's first start), the former tables answering for the keys not moved yet;
-- the former tables are dropped once empty, not here.
CREATE TABLE `competitor_totals` (
	`key_id` integer NOT NULL,
	`day` text NOT NULL,
	`results` integer DEFAULT 0 NOT NULL,
	`mentions` integer DEFAULT 0 NOT NULL,
	`position_sum` integer DEFAULT 0 NOT NULL,
	`position_n` integer DEFAULT 0 NOT NULL,
	`both` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`key_id`, `day`),
	FOREIGN KEY (`key_id`) REFERENCES `competitor_totals_keys`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `competitor_totals_keys` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`brand_id` text NOT NULL,
	`prompt_id` text NOT NULL,
	`platform` text NOT NULL,
	`model` text NOT NULL,
	`region` text NOT NULL,
	`competitor_id` text NOT NULL,
	`rows` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `competitor_totals_keys_key` ON `competitor_totals_keys` (`brand_id`,`prompt_id`,`platform`,`model`,`region`,`competitor_id`);--> statement-breakpoint
CREATE TABLE `domain_prompt_totals` (
	`key_id` integer NOT NULL,
	`day` text NOT NULL,
	`answers` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`key_id`, `day`),
	FOREIGN KEY (`key_id`) REFERENCES `domain_prompt_totals_keys`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `domain_prompt_totals_keys` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`brand_id` text NOT NULL,
	`domain` text NOT NULL,
	`prompt_id` text NOT NULL,
	`rows` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `domain_prompt_totals_keys_key` ON `domain_prompt_totals_keys` (`brand_id`,`domain`,`prompt_id`);--> statement-breakpoint
CREATE TABLE `domain_totals` (
	`key_id` integer NOT NULL,
	`day` text NOT NULL,
	`citations` integer DEFAULT 0 NOT NULL,
	`answers` integer DEFAULT 0 NOT NULL,
	`brand_mentioned` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`key_id`, `day`),
	FOREIGN KEY (`key_id`) REFERENCES `domain_totals_keys`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `domain_totals_keys` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`brand_id` text NOT NULL,
	`domain` text NOT NULL,
	`rows` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `domain_totals_keys_key` ON `domain_totals_keys` (`brand_id`,`domain`);--> statement-breakpoint
CREATE TABLE `query_totals` (
	`key_id` integer NOT NULL,
	`day` text NOT NULL,
	`answers` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`key_id`, `day`),
	FOREIGN KEY (`key_id`) REFERENCES `query_totals_keys`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `query_totals_keys` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`brand_id` text NOT NULL,
	`platform` text NOT NULL,
	`query` text NOT NULL,
	`rows` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `query_totals_keys_key` ON `query_totals_keys` (`brand_id`,`platform`,`query`);--> statement-breakpoint
CREATE TABLE `url_totals` (
	`key_id` integer NOT NULL,
	`day` text NOT NULL,
	`citations` integer DEFAULT 0 NOT NULL,
	`answers` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`key_id`, `day`),
	FOREIGN KEY (`key_id`) REFERENCES `url_totals_keys`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `url_totals_keys` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`brand_id` text NOT NULL,
	`normalized_url` text NOT NULL,
	`domain` text NOT NULL,
	`rows` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `url_totals_keys_key` ON `url_totals_keys` (`brand_id`,`normalized_url`,`domain`);

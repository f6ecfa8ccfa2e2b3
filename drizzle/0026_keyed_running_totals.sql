-- Issue #32: the log-fed running totals keyed by integer. crawler_paths_running and
-- traffic_pages_running kept the brand's UUID and the key's text (bot, hit, path; platform, path) in
-- every day's row; crawler_path_totals and traffic_page_totals keep per key id and day only the
-- totals, each key once in `<t>_keys` (ids never reused). The first start moves the rows across in
-- the transaction that writes their triggers (src/rollups/triggers.sqlite.ts, ~0.6 s per million
-- crawler requests), not rebuilt from the raw rows. The former tables are retired, not dropped here
-- (dropping reads every page): they go at start when small, else with `answerwatch vacuum --full`.
CREATE TABLE `crawler_path_totals` (
	`key_id` integer NOT NULL,
	`day` text NOT NULL,
	`requests` integer DEFAULT 0 NOT NULL,
	`refused` integer DEFAULT 0 NOT NULL,
	`not_found` integer DEFAULT 0 NOT NULL,
	`server_errors` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`key_id`, `day`),
	FOREIGN KEY (`key_id`) REFERENCES `crawler_path_totals_keys`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `crawler_path_totals_keys` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`brand_id` text NOT NULL,
	`bot` text NOT NULL,
	`hit` text NOT NULL,
	`path` text NOT NULL,
	`rows` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `crawler_path_totals_keys_key` ON `crawler_path_totals_keys` (`brand_id`,`bot`,`hit`,`path`);--> statement-breakpoint
CREATE TABLE `traffic_page_totals` (
	`key_id` integer NOT NULL,
	`day` text NOT NULL,
	`visits` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`key_id`, `day`),
	FOREIGN KEY (`key_id`) REFERENCES `traffic_page_totals_keys`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `traffic_page_totals_keys` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`brand_id` text NOT NULL,
	`platform` text NOT NULL,
	`path` text NOT NULL,
	`rows` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `traffic_page_totals_keys_key` ON `traffic_page_totals_keys` (`brand_id`,`platform`,`path`);

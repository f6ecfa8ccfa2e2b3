CREATE TABLE `crawler_daily` (
	`brand_id` text NOT NULL,
	`day` text NOT NULL,
	`bot` text NOT NULL,
	`class` text NOT NULL,
	`verdict` text NOT NULL,
	`requests` integer DEFAULT 0 NOT NULL,
	`pages` integer DEFAULT 0 NOT NULL,
	`refused` integer DEFAULT 0 NOT NULL,
	`bytes` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`brand_id`, `day`, `bot`, `class`, `verdict`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `crawler_monthly` (
	`brand_id` text NOT NULL,
	`month` text NOT NULL,
	`bot` text NOT NULL,
	`class` text NOT NULL,
	`verdict` text NOT NULL,
	`requests` integer DEFAULT 0 NOT NULL,
	`pages` integer DEFAULT 0 NOT NULL,
	`refused` integer DEFAULT 0 NOT NULL,
	`bytes` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`brand_id`, `month`, `bot`, `class`, `verdict`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `crawler_paths_running` (
	`brand_id` text NOT NULL,
	`bot` text NOT NULL,
	`hit` text NOT NULL,
	`path` text NOT NULL,
	`day` text NOT NULL,
	`requests` integer DEFAULT 0 NOT NULL,
	`refused` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`brand_id`, `bot`, `hit`, `path`, `day`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `crawler_paths_running_keys` (
	`brand_id` text NOT NULL,
	`bot` text NOT NULL,
	`hit` text NOT NULL,
	`path` text NOT NULL,
	`rows` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`brand_id`, `bot`, `hit`, `path`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_crawler_hits` (
	`id` integer PRIMARY KEY NOT NULL,
	`brand_id` text NOT NULL,
	`at` text NOT NULL,
	`host` text DEFAULT '' NOT NULL,
	`method` text NOT NULL,
	`path` text NOT NULL,
	`status` integer NOT NULL,
	`bytes` integer,
	`user_agent` text DEFAULT '' NOT NULL,
	`referer_host` text,
	`bot` text,
	`operator` text,
	`class` text NOT NULL,
	`hit` text NOT NULL,
	`verdict` text,
	`list_version` text,
	`record_key` blob NOT NULL,
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- Rowids in time order, and the record keys cut to their first 16 bytes as a blob (as new records get them).
INSERT INTO `__new_crawler_hits`("brand_id", "at", "host", "method", "path", "status", "bytes", "user_agent", "referer_host", "bot", "operator", "class", "hit", "verdict", "list_version", "record_key") SELECT "brand_id", "at", "host", "method", "path", "status", "bytes", "user_agent", "referer_host", "bot", "operator", "class", "hit", "verdict", "list_version", unhex(substr("record_key", 1, 32)) FROM `crawler_hits` ORDER BY "at";--> statement-breakpoint
DROP TABLE `crawler_hits`;--> statement-breakpoint
ALTER TABLE `__new_crawler_hits` RENAME TO `crawler_hits`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `crawler_hits_record_unique` ON `crawler_hits` (`brand_id`,`at`,`record_key`);
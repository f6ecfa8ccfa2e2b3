CREATE TABLE `crawler_hits` (
	`id` text PRIMARY KEY DEFAULT (lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' || substr(lower(hex(randomblob(2))), 2) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6)))) NOT NULL,
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
	`record_key` text NOT NULL,
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `crawler_hits_record_unique` ON `crawler_hits` (`brand_id`,`record_key`);--> statement-breakpoint
CREATE INDEX `crawler_hits_brand_time_idx` ON `crawler_hits` (`brand_id`,`at`);--> statement-breakpoint
CREATE TABLE `crawler_hourly` (
	`brand_id` text NOT NULL,
	`hour` text NOT NULL,
	`bot` text NOT NULL,
	`class` text NOT NULL,
	`verdict` text NOT NULL,
	`hit` text NOT NULL,
	`path` text NOT NULL,
	`status` integer NOT NULL,
	`requests` integer DEFAULT 0 NOT NULL,
	`bytes` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`brand_id`, `hour`, `bot`, `class`, `verdict`, `hit`, `path`, `status`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);

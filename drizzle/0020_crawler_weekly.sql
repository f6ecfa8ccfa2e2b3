CREATE TABLE `crawler_weekly` (
	`brand_id` text NOT NULL,
	`week` text NOT NULL,
	`bot` text NOT NULL,
	`class` text NOT NULL,
	`verdict` text NOT NULL,
	`requests` integer DEFAULT 0 NOT NULL,
	`pages` integer DEFAULT 0 NOT NULL,
	`refused` integer DEFAULT 0 NOT NULL,
	`not_found` integer DEFAULT 0 NOT NULL,
	`server_errors` integer DEFAULT 0 NOT NULL,
	`bytes` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`brand_id`, `week`, `bot`, `class`, `verdict`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);

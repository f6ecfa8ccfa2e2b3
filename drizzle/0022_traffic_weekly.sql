CREATE TABLE `traffic_platform_weekly` (
	`brand_id` text NOT NULL,
	`week` text NOT NULL,
	`platform` text NOT NULL,
	`visits` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`brand_id`, `week`, `platform`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `traffic_visitors_weekly` (
	`brand_id` text NOT NULL,
	`week` text NOT NULL,
	`platform` text NOT NULL,
	`visitors` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`brand_id`, `week`, `platform`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);

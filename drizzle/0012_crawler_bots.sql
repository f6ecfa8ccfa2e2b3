CREATE TABLE `crawler_bots` (
	`brand_id` text NOT NULL,
	`bot` text NOT NULL,
	`first_seen` text NOT NULL,
	PRIMARY KEY(`brand_id`, `bot`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);

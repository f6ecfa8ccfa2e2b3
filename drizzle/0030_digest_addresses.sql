CREATE TABLE `digest_addresses` (
	`user_id` text NOT NULL,
	`email` text NOT NULL,
	`requested_at` text,
	`confirmed_at` text,
	PRIMARY KEY(`user_id`, `email`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);

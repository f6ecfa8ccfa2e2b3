CREATE TABLE `digest_runs` (
	`id` text PRIMARY KEY DEFAULT (lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' || substr(lower(hex(randomblob(2))), 2) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6)))) NOT NULL,
	`brand_id` text NOT NULL,
	`period` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `digest_runs_period_unique` ON `digest_runs` (`brand_id`,`period`);--> statement-breakpoint
CREATE TABLE `digest_subscriptions` (
	`id` text PRIMARY KEY DEFAULT (lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' || substr(lower(hex(randomblob(2))), 2) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6)))) NOT NULL,
	`brand_id` text NOT NULL,
	`user_id` text NOT NULL,
	`frequency` text DEFAULT 'none' NOT NULL,
	`alerts` integer DEFAULT false NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `digest_subscriptions_pair_unique` ON `digest_subscriptions` (`user_id`,`brand_id`);--> statement-breakpoint
CREATE INDEX `digest_subscriptions_brand_idx` ON `digest_subscriptions` (`brand_id`);--> statement-breakpoint
ALTER TABLE `mail_outbox` ADD `headers` text;--> statement-breakpoint
ALTER TABLE `mail_outbox` ADD `attachments` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `logo` text;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `format` text DEFAULT 'standard' NOT NULL;
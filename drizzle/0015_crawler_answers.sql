ALTER TABLE `crawler_daily` ADD `not_found` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `crawler_daily` ADD `server_errors` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `crawler_monthly` ADD `not_found` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `crawler_monthly` ADD `server_errors` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `crawler_paths_running` ADD `not_found` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `crawler_paths_running` ADD `server_errors` integer DEFAULT 0 NOT NULL;
ALTER TABLE `prompt_results` ADD `sources` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `prompt_results` ADD `source_count` integer DEFAULT 0 NOT NULL;
CREATE TABLE `competitor_rollups_daily` (
	`brand_id` text NOT NULL,
	`day` text NOT NULL,
	`prompt_id` text NOT NULL,
	`platform` text NOT NULL,
	`model` text NOT NULL,
	`region` text NOT NULL,
	`competitor_id` text NOT NULL,
	`results` integer DEFAULT 0 NOT NULL,
	`mentions` integer DEFAULT 0 NOT NULL,
	`position_sum` integer DEFAULT 0 NOT NULL,
	`position_n` integer DEFAULT 0 NOT NULL,
	`both` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`brand_id`, `day`, `prompt_id`, `platform`, `model`, `region`, `competitor_id`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `competitor_rollups_monthly` (
	`brand_id` text NOT NULL,
	`month` text NOT NULL,
	`prompt_id` text NOT NULL,
	`platform` text NOT NULL,
	`model` text NOT NULL,
	`region` text NOT NULL,
	`competitor_id` text NOT NULL,
	`results` integer DEFAULT 0 NOT NULL,
	`mentions` integer DEFAULT 0 NOT NULL,
	`position_sum` integer DEFAULT 0 NOT NULL,
	`position_n` integer DEFAULT 0 NOT NULL,
	`both` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`brand_id`, `month`, `prompt_id`, `platform`, `model`, `region`, `competitor_id`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `domain_rollups_daily` (
	`brand_id` text NOT NULL,
	`day` text NOT NULL,
	`prompt_id` text NOT NULL,
	`platform` text NOT NULL,
	`model` text NOT NULL,
	`region` text NOT NULL,
	`domain` text NOT NULL,
	`citations` integer DEFAULT 0 NOT NULL,
	`answers` integer DEFAULT 0 NOT NULL,
	`brand_mentioned` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`brand_id`, `day`, `prompt_id`, `platform`, `model`, `region`, `domain`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `domain_rollups_monthly` (
	`brand_id` text NOT NULL,
	`month` text NOT NULL,
	`prompt_id` text NOT NULL,
	`platform` text NOT NULL,
	`model` text NOT NULL,
	`region` text NOT NULL,
	`domain` text NOT NULL,
	`citations` integer DEFAULT 0 NOT NULL,
	`answers` integer DEFAULT 0 NOT NULL,
	`brand_mentioned` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`brand_id`, `month`, `prompt_id`, `platform`, `model`, `region`, `domain`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `result_rollups_monthly` (
	`brand_id` text NOT NULL,
	`month` text NOT NULL,
	`prompt_id` text NOT NULL,
	`platform` text NOT NULL,
	`model` text NOT NULL,
	`region` text NOT NULL,
	`reported_model` text NOT NULL,
	`results` integer DEFAULT 0 NOT NULL,
	`mentioned` integer DEFAULT 0 NOT NULL,
	`mention_sum` integer DEFAULT 0 NOT NULL,
	`position_sum` integer DEFAULT 0 NOT NULL,
	`position_n` integer DEFAULT 0 NOT NULL,
	`cited` integer DEFAULT 0 NOT NULL,
	`citation_sum` integer DEFAULT 0 NOT NULL,
	`brand_citation_sum` integer DEFAULT 0 NOT NULL,
	`competitor_mention_sum` integer DEFAULT 0 NOT NULL,
	`sentiment_sum` real DEFAULT 0 NOT NULL,
	`sentiment_n` integer DEFAULT 0 NOT NULL,
	`positive` integer DEFAULT 0 NOT NULL,
	`neutral` integer DEFAULT 0 NOT NULL,
	`negative` integer DEFAULT 0 NOT NULL,
	`visibility_sum` real DEFAULT 0 NOT NULL,
	`visibility_n` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`brand_id`, `month`, `prompt_id`, `platform`, `model`, `region`, `reported_model`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
DROP TRIGGER IF EXISTS `rollup_competitor_daily_insert`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `rollup_competitor_daily_delete`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `rollup_competitor_daily_update`;--> statement-breakpoint
DROP TABLE `competitor_daily`;--> statement-breakpoint
DROP INDEX `prompt_results_unit_unique`;--> statement-breakpoint
ALTER TABLE `prompt_results` ADD `sample` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `prompt_results` ADD `reported_model` text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `prompt_results_unit_unique` ON `prompt_results` (`job_id`,`prompt_id`,`platform`,`model`,`region`,`sample`);--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_result_brand_daily` (
	`brand_id` text NOT NULL,
	`day` text NOT NULL,
	`platform` text NOT NULL,
	`model` text NOT NULL,
	`region` text NOT NULL,
	`reported_model` text NOT NULL,
	`results` integer DEFAULT 0 NOT NULL,
	`mentioned` integer DEFAULT 0 NOT NULL,
	`mention_sum` integer DEFAULT 0 NOT NULL,
	`position_sum` integer DEFAULT 0 NOT NULL,
	`position_n` integer DEFAULT 0 NOT NULL,
	`cited` integer DEFAULT 0 NOT NULL,
	`citation_sum` integer DEFAULT 0 NOT NULL,
	`brand_citation_sum` integer DEFAULT 0 NOT NULL,
	`competitor_mention_sum` integer DEFAULT 0 NOT NULL,
	`sentiment_sum` real DEFAULT 0 NOT NULL,
	`sentiment_n` integer DEFAULT 0 NOT NULL,
	`positive` integer DEFAULT 0 NOT NULL,
	`neutral` integer DEFAULT 0 NOT NULL,
	`negative` integer DEFAULT 0 NOT NULL,
	`visibility_sum` real DEFAULT 0 NOT NULL,
	`visibility_n` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`brand_id`, `day`, `platform`, `model`, `region`, `reported_model`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
DROP TABLE `result_brand_daily`;--> statement-breakpoint
ALTER TABLE `__new_result_brand_daily` RENAME TO `result_brand_daily`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE TABLE `__new_result_rollups_daily` (
	`brand_id` text NOT NULL,
	`day` text NOT NULL,
	`prompt_id` text NOT NULL,
	`platform` text NOT NULL,
	`model` text NOT NULL,
	`region` text NOT NULL,
	`reported_model` text NOT NULL,
	`results` integer DEFAULT 0 NOT NULL,
	`mentioned` integer DEFAULT 0 NOT NULL,
	`mention_sum` integer DEFAULT 0 NOT NULL,
	`position_sum` integer DEFAULT 0 NOT NULL,
	`position_n` integer DEFAULT 0 NOT NULL,
	`cited` integer DEFAULT 0 NOT NULL,
	`citation_sum` integer DEFAULT 0 NOT NULL,
	`brand_citation_sum` integer DEFAULT 0 NOT NULL,
	`competitor_mention_sum` integer DEFAULT 0 NOT NULL,
	`sentiment_sum` real DEFAULT 0 NOT NULL,
	`sentiment_n` integer DEFAULT 0 NOT NULL,
	`positive` integer DEFAULT 0 NOT NULL,
	`neutral` integer DEFAULT 0 NOT NULL,
	`negative` integer DEFAULT 0 NOT NULL,
	`visibility_sum` real DEFAULT 0 NOT NULL,
	`visibility_n` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`brand_id`, `day`, `prompt_id`, `platform`, `model`, `region`, `reported_model`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
DROP TABLE `result_rollups_daily`;--> statement-breakpoint
ALTER TABLE `__new_result_rollups_daily` RENAME TO `result_rollups_daily`;--> statement-breakpoint
CREATE INDEX `result_rollups_daily_prompt_idx` ON `result_rollups_daily` (`prompt_id`,`day`);--> statement-breakpoint
CREATE TABLE `__new_brand_platforms` (
	`id` text PRIMARY KEY DEFAULT (lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' || substr(lower(hex(randomblob(2))), 2) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6)))) NOT NULL,
	`brand_id` text NOT NULL,
	`platform` text NOT NULL,
	`is_enabled` integer DEFAULT true NOT NULL,
	`check_frequency` text DEFAULT 'daily' NOT NULL,
	`model` text,
	`api_model` text GENERATED ALWAYS AS (model) VIRTUAL,
	`samples` integer DEFAULT 1 NOT NULL,
	`last_checked_at` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "brand_platforms_samples_range" CHECK("samples" BETWEEN 1 AND 10)
);
--> statement-breakpoint
INSERT INTO `__new_brand_platforms`("id", "brand_id", "platform", "is_enabled", "check_frequency", "model", "last_checked_at", "created_at", "updated_at") SELECT "id", "brand_id", "platform", "is_enabled", "check_frequency", "model", "last_checked_at", "created_at", "updated_at" FROM `brand_platforms`;--> statement-breakpoint
DROP TABLE `brand_platforms`;--> statement-breakpoint
ALTER TABLE `__new_brand_platforms` RENAME TO `brand_platforms`;--> statement-breakpoint
CREATE UNIQUE INDEX `brand_platforms_brand_platform_unique` ON `brand_platforms` (`brand_id`,`platform`);--> statement-breakpoint
-- The rebuilt table lost its trigger (0004): updated_at kept on every update, whichever path writes the row.
CREATE TRIGGER `brand_platforms_updated_at` AFTER UPDATE ON `brand_platforms` FOR EACH ROW WHEN NEW.`updated_at` IS OLD.`updated_at` BEGIN UPDATE `brand_platforms` SET `updated_at` = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE rowid = NEW.rowid; END;--> statement-breakpoint
ALTER TABLE `job_units` ADD `sample` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `prompts` ADD `is_branded` integer DEFAULT false NOT NULL;--> statement-breakpoint
-- is_branded is derived (src/insights/branded.ts): recomputing it is not an edit of the prompt, so
-- updated_at moves on a change of any other column only. A column added to prompts later joins this list.
DROP TRIGGER `prompts_updated_at`;--> statement-breakpoint
CREATE TRIGGER `prompts_updated_at` AFTER UPDATE OF `id`, `prompt_set_id`, `brand_id`, `text`, `category`, `is_active`, `platforms`, `models`, `regions`, `topic_id`, `work_status`, `created_at`, `updated_at` ON `prompts` FOR EACH ROW WHEN NEW.`updated_at` IS OLD.`updated_at` BEGIN UPDATE `prompts` SET `updated_at` = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE rowid = NEW.rowid; END;--> statement-breakpoint
-- The model the engine reported was kept in details until now (aw_text: src/db/text-codec.ts).
UPDATE `prompt_results` SET `reported_model` = coalesce(json_extract(aw_text(`details`), '$.reported_model'), '') WHERE json_valid(aw_text(`details`)) AND json_type(json_extract(aw_text(`details`), '$.reported_model')) = 'text';

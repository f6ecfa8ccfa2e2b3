CREATE TABLE `topics` (
	`id` text PRIMARY KEY DEFAULT (lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' || substr(lower(hex(randomblob(2))), 2) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6)))) NOT NULL,
	`brand_id` text NOT NULL,
	`name` text NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `topics_brand_idx` ON `topics` (`brand_id`);--> statement-breakpoint
-- Positions become unique per result (Ansvisor's key): a duplicate moves past the result's highest.
UPDATE `citations` SET `position` = (SELECT max(c2.`position`) FROM `citations` c2 WHERE c2.`result_id` = `citations`.`result_id`) + (SELECT count(*) FROM `citations` c3 WHERE c3.`result_id` = `citations`.`result_id` AND c3.`position` = `citations`.`position` AND c3.rowid < `citations`.rowid) WHERE EXISTS (SELECT 1 FROM `citations` c4 WHERE c4.`result_id` = `citations`.`result_id` AND c4.`position` = `citations`.`position` AND c4.rowid < `citations`.rowid);--> statement-breakpoint
DROP INDEX `citations_result_idx`;--> statement-breakpoint
ALTER TABLE `citations` ADD `prompt_result_id` text GENERATED ALWAYS AS (result_id) VIRTUAL;--> statement-breakpoint
CREATE UNIQUE INDEX `citations_result_position_unique` ON `citations` (`result_id`,`position`);--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_suggestions` (
	`id` text PRIMARY KEY DEFAULT (lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' || substr(lower(hex(randomblob(2))), 2) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6)))) NOT NULL,
	`brand_id` text NOT NULL,
	`type` text DEFAULT 'manual' NOT NULL,
	`key` text DEFAULT ('manual:' || lower(hex(randomblob(8)))) NOT NULL,
	`title` text NOT NULL,
	`detail` text,
	`evidence` text DEFAULT '{}' NOT NULL,
	`priority` text DEFAULT 'medium' NOT NULL,
	`status` text DEFAULT 'new' NOT NULL,
	`prompt_id` text,
	`description` text,
	`impact` text,
	`opportunity_score` real,
	`source` text,
	`source_data` text,
	`brief` text,
	`suggested_text` text,
	`topic_id` text,
	`topic_name` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`prompt_id`) REFERENCES `prompts`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`topic_id`) REFERENCES `topics`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
INSERT INTO `__new_suggestions`("id", "brand_id", "type", "key", "title", "detail", "evidence", "priority", "status", "created_at", "updated_at") SELECT "id", "brand_id", "type", "key", "title", "detail", "evidence", "priority", "status", "created_at", "updated_at" FROM `suggestions`;--> statement-breakpoint
DROP TABLE `suggestions`;--> statement-breakpoint
ALTER TABLE `__new_suggestions` RENAME TO `suggestions`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `suggestions_brand_type_key_unique` ON `suggestions` (`brand_id`,`type`,`key`);--> statement-breakpoint
ALTER TABLE `brand_domains` ADD `country` text;--> statement-breakpoint
ALTER TABLE `brands` ADD `description` text;--> statement-breakpoint
ALTER TABLE `brands` ADD `logo_url` text;--> statement-breakpoint
ALTER TABLE `brands` ADD `is_active` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `brands` ADD `state` text;--> statement-breakpoint
ALTER TABLE `brands` ADD `shopping_mode_enabled` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `brands` ADD `gsc_property` text;--> statement-breakpoint
ALTER TABLE `brands` ADD `ga_property_id` text;--> statement-breakpoint
ALTER TABLE `prompt_results` ADD `model_used` text GENERATED ALWAYS AS (model) VIRTUAL;--> statement-breakpoint
ALTER TABLE `prompt_results` ADD `mentioned_entity_count` integer;--> statement-breakpoint
ALTER TABLE `prompt_results` ADD `shopping_cards` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `prompt_results` ADD `inline_products` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `prompts` ADD `topic_id` text REFERENCES `topics`(`id`) ON UPDATE no action ON DELETE set null;--> statement-breakpoint
ALTER TABLE `prompts` ADD `work_status` text;--> statement-breakpoint
CREATE INDEX `prompts_topic_idx` ON `prompts` (`topic_id`);--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_brand_platforms` (
	`id` text PRIMARY KEY DEFAULT (lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' || substr(lower(hex(randomblob(2))), 2) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6)))) NOT NULL,
	`brand_id` text NOT NULL,
	`platform` text NOT NULL,
	`is_enabled` integer DEFAULT true NOT NULL,
	`check_frequency` text DEFAULT 'daily' NOT NULL,
	`model` text,
	`api_model` text GENERATED ALWAYS AS (model) VIRTUAL,
	`last_checked_at` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_brand_platforms`("id", "brand_id", "platform", "is_enabled", "check_frequency", "model", "last_checked_at", "created_at", "updated_at") SELECT "id", "brand_id", "platform", "is_enabled", "check_frequency", "model", "last_checked_at", "created_at", "created_at" FROM `brand_platforms`;--> statement-breakpoint
DROP TABLE `brand_platforms`;--> statement-breakpoint
ALTER TABLE `__new_brand_platforms` RENAME TO `brand_platforms`;--> statement-breakpoint
CREATE UNIQUE INDEX `brand_platforms_brand_platform_unique` ON `brand_platforms` (`brand_id`,`platform`);--> statement-breakpoint
CREATE TABLE `__new_prompt_sets` (
	`id` text PRIMARY KEY DEFAULT (lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' || substr(lower(hex(randomblob(2))), 2) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6)))) NOT NULL,
	`brand_id` text NOT NULL,
	`name` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_prompt_sets`("id", "brand_id", "name", "created_at", "updated_at") SELECT "id", "brand_id", "name", "created_at", "created_at" FROM `prompt_sets`;--> statement-breakpoint
DROP TABLE `prompt_sets`;--> statement-breakpoint
ALTER TABLE `__new_prompt_sets` RENAME TO `prompt_sets`;--> statement-breakpoint
CREATE INDEX `prompt_sets_brand_idx` ON `prompt_sets` (`brand_id`);--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
-- organizations.updated_at is kept on every update, whichever path writes the row.
CREATE TRIGGER `organizations_updated_at` AFTER UPDATE ON `organizations` FOR EACH ROW WHEN NEW.`updated_at` IS OLD.`updated_at` BEGIN UPDATE `organizations` SET `updated_at` = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE rowid = NEW.rowid; END;--> statement-breakpoint
-- brands.updated_at is kept on every update, whichever path writes the row.
CREATE TRIGGER `brands_updated_at` AFTER UPDATE ON `brands` FOR EACH ROW WHEN NEW.`updated_at` IS OLD.`updated_at` BEGIN UPDATE `brands` SET `updated_at` = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE rowid = NEW.rowid; END;--> statement-breakpoint
-- prompt_sets.updated_at is kept on every update, whichever path writes the row.
CREATE TRIGGER `prompt_sets_updated_at` AFTER UPDATE ON `prompt_sets` FOR EACH ROW WHEN NEW.`updated_at` IS OLD.`updated_at` BEGIN UPDATE `prompt_sets` SET `updated_at` = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE rowid = NEW.rowid; END;--> statement-breakpoint
-- prompts.updated_at is kept on every update, whichever path writes the row.
CREATE TRIGGER `prompts_updated_at` AFTER UPDATE ON `prompts` FOR EACH ROW WHEN NEW.`updated_at` IS OLD.`updated_at` BEGIN UPDATE `prompts` SET `updated_at` = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE rowid = NEW.rowid; END;--> statement-breakpoint
-- brand_platforms.updated_at is kept on every update, whichever path writes the row.
CREATE TRIGGER `brand_platforms_updated_at` AFTER UPDATE ON `brand_platforms` FOR EACH ROW WHEN NEW.`updated_at` IS OLD.`updated_at` BEGIN UPDATE `brand_platforms` SET `updated_at` = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE rowid = NEW.rowid; END;--> statement-breakpoint
-- suggestions.updated_at is kept on every update, whichever path writes the row.
CREATE TRIGGER `suggestions_updated_at` AFTER UPDATE ON `suggestions` FOR EACH ROW WHEN NEW.`updated_at` IS OLD.`updated_at` BEGIN UPDATE `suggestions` SET `updated_at` = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE rowid = NEW.rowid; END;--> statement-breakpoint
-- webhook_endpoints.updated_at is kept on every update, whichever path writes the row.
CREATE TRIGGER `webhook_endpoints_updated_at` AFTER UPDATE ON `webhook_endpoints` FOR EACH ROW WHEN NEW.`updated_at` IS OLD.`updated_at` BEGIN UPDATE `webhook_endpoints` SET `updated_at` = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE rowid = NEW.rowid; END;

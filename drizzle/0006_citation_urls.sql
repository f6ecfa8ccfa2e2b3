CREATE TABLE `citation_urls` (
	`id` integer PRIMARY KEY NOT NULL,
	`url` text NOT NULL,
	`normalized_url` text NOT NULL,
	`title` text DEFAULT '' NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `citation_urls_unique` ON `citation_urls` (`url`,`normalized_url`,`title`);--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_citations` (
	`id` text PRIMARY KEY DEFAULT (lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' || substr(lower(hex(randomblob(2))), 2) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6)))) NOT NULL,
	`result_id` text NOT NULL,
	`prompt_result_id` text GENERATED ALWAYS AS (result_id) VIRTUAL,
	`brand_id` text NOT NULL,
	`position` integer NOT NULL,
	`url` text,
	`normalized_url` text,
	`url_id` integer,
	`domain` text NOT NULL,
	`title` text,
	`is_brand` integer DEFAULT false NOT NULL,
	`competitor_id` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`result_id`) REFERENCES `prompt_results`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`url_id`) REFERENCES `citation_urls`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`competitor_id`) REFERENCES `competitors`(`id`) ON UPDATE no action ON DELETE set null,
	CONSTRAINT "citations_url_present" CHECK((url IS NOT NULL AND normalized_url IS NOT NULL) OR url_id IS NOT NULL)
);
--> statement-breakpoint
INSERT INTO `__new_citations`("id", "result_id", "brand_id", "position", "url", "normalized_url", "domain", "title", "is_brand", "competitor_id", "created_at") SELECT "id", "result_id", "brand_id", "position", "url", "normalized_url", "domain", "title", "is_brand", "competitor_id", "created_at" FROM `citations`;--> statement-breakpoint
-- Each cited URL once; the citation rows refer to it (a title of '' stays in its row: '' stands for no title in citation_urls).
INSERT OR IGNORE INTO `citation_urls` (url, normalized_url, title) SELECT url, normalized_url, coalesce(title, '') FROM `__new_citations` WHERE title IS NULL OR title != '' ORDER BY rowid;--> statement-breakpoint
UPDATE `__new_citations` SET url_id = (SELECT u.id FROM `citation_urls` AS u WHERE u.url = `__new_citations`.url AND u.normalized_url = `__new_citations`.normalized_url AND u.title = coalesce(`__new_citations`.title, '')), url = NULL, normalized_url = NULL, title = NULL
 WHERE title IS NULL OR title != '';--> statement-breakpoint
DROP TABLE `citations`;--> statement-breakpoint
ALTER TABLE `__new_citations` RENAME TO `citations`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `citations_result_position_unique` ON `citations` (`result_id`,`position`);--> statement-breakpoint
CREATE INDEX `citations_brand_domain_idx` ON `citations` (`brand_id`,`domain`);--> statement-breakpoint
CREATE INDEX `citations_brand_time_idx` ON `citations` (`brand_id`,`created_at`);
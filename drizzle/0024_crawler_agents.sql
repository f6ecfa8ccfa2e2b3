-- Issue #32: each user agent of the crawler logs kept once; new crawler_hits rows name it by id
-- (user_agent '' then). Rows written before keep their text; adding the column reads no row.
CREATE TABLE `crawler_agents` (
	`id` integer PRIMARY KEY NOT NULL,
	`user_agent` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `crawler_agents_user_agent_unique` ON `crawler_agents` (`user_agent`);--> statement-breakpoint
ALTER TABLE `crawler_hits` ADD `agent_id` integer REFERENCES crawler_agents(id);
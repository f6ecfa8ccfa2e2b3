-- Issue #32: each brand's zstd dictionaries (src/db/text-codec.ts), made by storage upkeep from the
-- brand's newest answers (src/storage/dictionaries.sqlite.ts); answers repacked with them name one
-- by id. Not exposed over REST. An id is never reused (AUTOINCREMENT): a connection keeps the ones it
-- loaded. They go with their brand, as its answers do (an answer moved to another brand is unpacked as it
-- moves: src/storage/dictionaries.sqlite.ts, a trigger made at start).
CREATE TABLE `text_dictionaries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`brand_id` text NOT NULL REFERENCES `brands`(`id`) ON DELETE cascade,
	`column_name` text NOT NULL,
	`answers` integer NOT NULL,
	`dictionary` blob NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `text_dictionaries_brand_idx` ON `text_dictionaries` (`brand_id`, `column_name`, `id`);

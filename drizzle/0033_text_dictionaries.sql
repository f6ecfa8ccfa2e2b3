-- Issue #32: each brand's zstd dictionaries (src/db/text-codec.ts), made by storage upkeep from the
-- brand's newest answers (src/storage/dictionaries.sqlite.ts); answers repacked with them name one
-- by id. Not exposed over REST. An id is never reused (AUTOINCREMENT): a connection keeps the ones it
-- loaded. They go with their brand, as its answers do.
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
--> statement-breakpoint
-- An answer moved to another brand would outlive its old brand's dictionaries: its text is unpacked
-- as it moves (upkeep packs it again with the new brand's).
CREATE TRIGGER `prompt_results_unpack_on_brand_move` AFTER UPDATE OF `brand_id` ON `prompt_results`
WHEN NEW.`brand_id` IS NOT OLD.`brand_id`
BEGIN
  UPDATE `prompt_results` SET
    `response` = aw_text(`response`, (SELECT `dictionary` FROM `text_dictionaries` WHERE `id` = aw_text_wants(`response`))),
    `sources` = aw_text(`sources`, (SELECT `dictionary` FROM `text_dictionaries` WHERE `id` = aw_text_wants(`sources`))),
    `details` = aw_text(`details`, (SELECT `dictionary` FROM `text_dictionaries` WHERE `id` = aw_text_wants(`details`)))
  WHERE rowid = NEW.rowid AND (
    (typeof(`response`) = 'blob' AND substr(`response`, 1, 1) = x'D1') OR
    (typeof(`sources`) = 'blob' AND substr(`sources`, 1, 1) = x'D1') OR
    (typeof(`details`) = 'blob' AND substr(`details`, 1, 1) = x'D1'));
END;

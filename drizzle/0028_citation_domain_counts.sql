-- Issue #32: the brand's citations per cited domain, all time (what a REST count of a brand's
-- citations sums). citation_domain_daily kept them per day as well, and per brand and competitor
-- citation, which nothing read: ~116 B a result for ~11. The new table is filled at the first start
-- (a rollup new to rollup_state is rebuilt from the raw rows). The former table is retired, not
-- dropped here (dropping reads every page): it goes at start when small, else with
-- `answerwatch vacuum --full`.
CREATE TABLE `citation_domain_counts` (
	`brand_id` text NOT NULL,
	`domain` text NOT NULL,
	`citations` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`brand_id`, `domain`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;

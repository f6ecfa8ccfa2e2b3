-- Issue #32: the per-prompt cited-domain rollup by day (1.9 KB a result) served only filtered domain
-- reads; they now take whole months from domain_rollups_monthly and the days at a window's edges
-- from the answers. Its triggers go at start (ensureRollups drops those of rollups no longer defined).
DROP TABLE `domain_rollups_daily`;--> statement-breakpoint
DELETE FROM `rollup_state` WHERE `name` = 'domain_rollups_daily';

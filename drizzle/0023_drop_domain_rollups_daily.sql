-- Issue #32: the per-prompt cited-domain rollup by day (1.9 KB a result) served only filtered domain
-- reads; they now take whole months from domain_rollups_monthly and the days at a window's edges
-- from the answers. It is no longer kept (ensureRollups drops the triggers of rollups no longer
-- defined) but not dropped here: dropping reads every page of it (~13 s per million results), so the
-- table goes at start when small, else with `answerwatch vacuum --full` (src/rollups/triggers.sqlite.ts).
SELECT 1;

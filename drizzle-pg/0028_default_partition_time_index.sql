-- Retention deletes the rows of months past LOG_RETENTION_MONTHS that wait in the raw logs' default
-- partitions (months imported while they had no partition of their own). A BRIN index on each time
-- column finds them without reading the whole partition every hourly round, and costs little to
-- keep: rows arrive there roughly in time order, and rarely.
CREATE INDEX IF NOT EXISTS "crawler_hits_default_at_brin" ON "crawler_hits_default" USING brin ("at");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "ai_traffic_logs_default_created_at_brin" ON "ai_traffic_logs_default" USING brin ("created_at");

-- crawler_hourly (per request: hour × path × status) was kept by every crawler request and read by
-- nothing; its triggers on crawler_hits are dropped at start by ensureRollups (no longer defined).
DROP TABLE `crawler_hourly`;

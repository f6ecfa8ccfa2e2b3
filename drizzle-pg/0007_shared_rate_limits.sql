-- Rate limits the instances of one deployment share (src/http/rate-limit.pg.ts): one row per hit
-- of a limiter's key, kept for the limiter's window. Not part of the data model (src/db/pg/schema.ts).
CREATE TABLE IF NOT EXISTS answerwatch_rate_limits (
	limiter text NOT NULL,
	key text NOT NULL,
	at timestamptz NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS answerwatch_rate_limits_key_idx ON answerwatch_rate_limits (limiter, key, at);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS answerwatch_rate_limits_at_idx ON answerwatch_rate_limits (limiter, at);

-- State the instances of one deployment share and SQLite keeps in DATA_DIR or in the process:
-- the generated secrets (one row, written once under a lock) and the instances themselves, each
-- with a heartbeat (shown by /healthz and /metrics). Not part of the data model (src/db/pg/schema.ts).
CREATE TABLE IF NOT EXISTS answerwatch_secrets (
	id integer PRIMARY KEY CHECK (id = 1),
	stored jsonb NOT NULL,
	updated_at timestamptz NOT NULL DEFAULT now()
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS answerwatch_instances (
	id uuid PRIMARY KEY,
	host text NOT NULL,
	pid integer NOT NULL,
	version text NOT NULL,
	url text,
	started_at timestamptz NOT NULL DEFAULT now(),
	heartbeat_at timestamptz NOT NULL DEFAULT now()
);

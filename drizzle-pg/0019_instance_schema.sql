-- Each instance says how many of these migrations its release carries: a table a newer release
-- retired (src/rollups/spec.ts RETIRED_ROLLUPS) is dropped only once every live instance knows the
-- migration that retired it — during a rolling upgrade the old instances still read it. An
-- instance of a release before this column registers none: it counts as old.
ALTER TABLE answerwatch_instances ADD COLUMN IF NOT EXISTS "schema" integer;

// How far this release's Postgres schema goes: the number of its migrations (drizzle-pg/). Each
// instance registers it (answerwatch_instances.schema), so a newer release can tell whether an
// older one still runs and may still read a table it retired.
import { embeddedMigrations } from "./migrations.generated";

export const PG_SCHEMA_LEVEL = embeddedMigrations.length;

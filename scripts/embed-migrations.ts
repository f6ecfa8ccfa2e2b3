// Turns drizzle/ (drizzle-kit's output) into a TypeScript module, so `bun build --compile`
// embeds the migrations in the binary and the server never reads them from disk; and drizzle-pg/
// (Postgres mode's, from drizzle.pg.config.ts) the same way into src/db/pg/migrations.generated.ts.
// Run by `npm run db:generate`; tests/foundation/schema.test.ts and pg-schema.test.ts check both are up to date.
import { renderEmbeddedMigrations } from "../src/db/migrations";

const root = new URL("..", import.meta.url).pathname;
await Bun.write(`${root}src/db/migrations.generated.ts`, await renderEmbeddedMigrations(`${root}drizzle`));
console.log("src/db/migrations.generated.ts written");
await Bun.write(`${root}src/db/pg/migrations.generated.ts`, await renderEmbeddedMigrations(`${root}drizzle-pg`, { source: "drizzle-pg/", typesFrom: "../migrations" }));
console.log("src/db/pg/migrations.generated.ts written");

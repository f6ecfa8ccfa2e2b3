// Turns drizzle/ (drizzle-kit's output) into a TypeScript module, so `bun build --compile`
// embeds the migrations in the binary and the server never reads them from disk.
// Run by `npm run db:generate`; tests/foundation/migrations.test.ts checks it is up to date.
import { renderEmbeddedMigrations } from "../src/db/migrations";

const root = new URL("..", import.meta.url).pathname;
await Bun.write(`${root}src/db/migrations.generated.ts`, await renderEmbeddedMigrations(`${root}drizzle`));
console.log("src/db/migrations.generated.ts written");

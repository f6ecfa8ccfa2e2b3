// Postgres mode's migrations (DESIGN §17): generated from src/db/pg/schema.ts into drizzle-pg/,
// hand-written parts added with `drizzle-kit generate --custom --config drizzle.pg.config.ts --name …`.
import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "postgresql",
  schema: "./src/db/pg/schema.ts",
  out: "./drizzle-pg",
});

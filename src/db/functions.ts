// The SQL functions every answerwatch connection registers: the stored columns' decompression
// (aw_text) and a statement's deadline (aw_within_deadline, a no-op unless /rest/v1 replaces it),
// the database layer's own, and those the features' triggers call (handed down as schema parts,
// such as the brand matcher of prompts.is_branded). A connection without them (a bare sqlite3
// shell) can read the file but not write results, prompts or brands, nor delete rows rollups count.
import type { Database } from "bun:sqlite";
import type { SchemaPart } from "./schema-part";
import { registerNoDeadline } from "./statement-deadline";
import { registerTextFunctions } from "./text-codec";

export function registerSqlFunctions(sqlite: Database, parts: readonly SchemaPart[]): void {
  registerTextFunctions(sqlite);
  registerNoDeadline(sqlite);
  for (const part of parts) part.functions?.(sqlite);
}

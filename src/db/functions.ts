// The SQL functions every answerwatch connection registers: the stored columns' decompression
// (aw_text) and the brand matcher of prompts.is_branded (aw_names_brand). Triggers call them, so a
// connection without them (a bare sqlite3 shell) can read the file but not write results, prompts
// or brands.
import type { Database } from "bun:sqlite";
import { registerBrandedFunction } from "../insights/branded";
import { registerTextFunctions } from "./text-codec";

export function registerSqlFunctions(sqlite: Database): void {
  registerTextFunctions(sqlite);
  registerBrandedFunction(sqlite);
}

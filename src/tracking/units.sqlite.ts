// What a worker thread reads to run a unit, on SQLite (store.ts says what each operation does).
// Its own module: a worker thread loads this, not the main thread's store and what it imports.
import type { Database } from "bun:sqlite";
import { loadEntities } from "./entities.sqlite";
import type { UnitStore } from "./store";

export function createSqliteUnitStore(sqlite: Database): UnitStore {
  const q = {
    unit: sqlite.prepare("SELECT status FROM job_units WHERE job_id = ? AND seq = ?"),
    prompt: sqlite.prepare("SELECT text FROM prompts WHERE id = ?"),
  };
  return {
    async unitInput({ jobId, seq, promptId }) {
      const unit = q.unit.get(jobId, seq) as { status: string } | null;
      // A unit that is no longer pending is skipped: its prompt is not read.
      if (unit?.status !== "pending") return { status: unit?.status ?? null, promptText: null };
      return { status: unit.status, promptText: (q.prompt.get(promptId) as { text: string } | null)?.text ?? null };
    },
    entities: async (brandId) => loadEntities(sqlite, brandId),
  };
}

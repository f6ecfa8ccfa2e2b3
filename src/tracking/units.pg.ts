// Placeholder until the tracking stores' Postgres implementation lands (pg-tracking).
import type { SQL } from "bun";
import type { UnitStore } from "./store";

export function createPgUnitStore(_sql: SQL): UnitStore {
  throw new Error("the unit store has no Postgres implementation yet");
}

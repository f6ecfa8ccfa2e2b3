import { createSqliteQueueStore } from "../../src/queue/store.sqlite";
import { createSqliteTrackingStore } from "../../src/tracking/store.sqlite";
import { createSqliteUnitStore } from "../../src/tracking/units.sqlite";
import { describeTrackingStoreContract } from "./tracking.contract";
import { sqliteHarness } from "./harness";

describeTrackingStoreContract("sqlite", async () => {
  const h = sqliteHarness();
  return { ...h, store: createSqliteTrackingStore(h.dbh.sqlite), units: createSqliteUnitStore(h.dbh.sqlite), queue: createSqliteQueueStore(h.dbh.sqlite) };
});

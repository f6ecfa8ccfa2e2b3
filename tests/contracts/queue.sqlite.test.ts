import { createSqliteQueueStore } from "../../src/queue/store.sqlite";
import { describeQueueStoreContract } from "./queue.contract";
import { sqliteHarness } from "./harness";

describeQueueStoreContract("sqlite", async (now) => {
  const h = sqliteHarness();
  return { ...h, store: createSqliteQueueStore(h.dbh.sqlite, now) };
});

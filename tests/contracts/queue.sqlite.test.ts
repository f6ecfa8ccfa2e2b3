import { openDatabase } from "../../src/database";
import { createSqliteQueueStore } from "../../src/queue/store.sqlite";
import { describeQueueStoreContract } from "./queue.contract";
import { sqliteHarness } from "./harness";

describeQueueStoreContract("sqlite", async (now) => {
  const h = sqliteHarness();
  const second = async () => {
    // Another connection to the same file, as a second process would open it.
    const dbh = openDatabase(h.dbh.sqlite.filename, { migrate: false });
    return { store: createSqliteQueueStore(dbh.sqlite, now), close: async () => dbh.close() };
  };
  return { ...h, store: createSqliteQueueStore(h.dbh.sqlite, now), second };
});

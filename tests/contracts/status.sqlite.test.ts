import { createSqliteStatusStore } from "../../src/http/status-store.sqlite";
import { sqliteHarness } from "./harness";
import { describeStatusStoreContract } from "./status.contract";

describeStatusStoreContract("sqlite", async () => {
  const h = sqliteHarness();
  return { ...h, store: createSqliteStatusStore(h.dbh.sqlite) };
});

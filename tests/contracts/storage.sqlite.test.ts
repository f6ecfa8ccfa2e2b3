import { createSqliteStorageStore } from "../../src/storage/store.sqlite";
import { describeStorageStoreContract } from "./storage.contract";
import { sqliteHarness } from "./harness";

describeStorageStoreContract("sqlite", async () => {
  const h = sqliteHarness();
  return { ...h, store: createSqliteStorageStore(h.dbh.sqlite) };
});

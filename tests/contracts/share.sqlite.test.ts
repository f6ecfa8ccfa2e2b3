import { createSqliteShareStore } from "../../src/share/store.sqlite";
import { describeShareStoreContract } from "./share.contract";
import { sqliteHarness } from "./harness";

describeShareStoreContract("sqlite", async () => {
  const h = sqliteHarness();
  return { ...h, store: createSqliteShareStore(h.dbh.sqlite) };
});

import { createSqlitePixelStore } from "../../src/pixel/store.sqlite";
import { describePixelStoreContract } from "./pixel.contract";
import { sqliteHarness } from "./harness";

describePixelStoreContract("sqlite", async () => {
  const h = sqliteHarness();
  return { ...h, store: createSqlitePixelStore(h.dbh.sqlite), storeWith: (options) => createSqlitePixelStore(h.dbh.sqlite, options) };
});

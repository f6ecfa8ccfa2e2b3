import { createSqliteCrawlerStore } from "../../src/crawlers/store.sqlite";
import { describeCrawlerStoreContract } from "./crawlers.contract";
import { sqliteHarness } from "./harness";

describeCrawlerStoreContract("sqlite", async () => {
  const h = sqliteHarness();
  return { ...h, store: createSqliteCrawlerStore(h.dbh.sqlite) };
});

describeCrawlerStoreContract("sqlite, bulk import", async () => {
  const h = sqliteHarness();
  return { ...h, store: createSqliteCrawlerStore(h.dbh.sqlite, { bulkImport: true }) };
});

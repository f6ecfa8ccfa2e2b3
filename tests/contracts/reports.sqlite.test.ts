import { createSqliteReportsStore } from "../../src/reports/store.sqlite";
import { describeReportsStoreContract } from "./reports.contract";
import { sqliteHarness } from "./harness";

describeReportsStoreContract("sqlite", async () => {
  const h = sqliteHarness();
  return { ...h, store: createSqliteReportsStore(h.dbh.sqlite) };
});

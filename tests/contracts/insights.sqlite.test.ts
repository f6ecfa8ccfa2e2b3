import { createSqliteInsightsStore } from "../../src/insights/store.sqlite";
import { describeInsightsStoreContract } from "./insights.contract";
import { sqliteHarness } from "./harness";

describeInsightsStoreContract("sqlite", async () => {
  const h = sqliteHarness();
  return { ...h, store: createSqliteInsightsStore(h.dbh.sqlite) };
});

import { createSqliteClientReportStore } from "../../src/client-report/store.sqlite";
import { describeClientReportStoreContract } from "./client-report.contract";
import { sqliteHarness } from "./harness";

describeClientReportStoreContract("sqlite", async () => {
  const h = sqliteHarness();
  return { ...h, store: createSqliteClientReportStore(h.dbh.sqlite) };
});

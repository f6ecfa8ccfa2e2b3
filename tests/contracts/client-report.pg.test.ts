import { createPgClientReportStore } from "../../src/client-report/store.pg";
import { describeClientReportStoreContract } from "./client-report.contract";
import { pgHarness } from "./harness.pg";

const h = await pgHarness();
if (h) describeClientReportStoreContract("postgres", async () => ({ ...h, store: createPgClientReportStore(h.pg.sql) }));

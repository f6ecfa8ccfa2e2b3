import { createPgReportsStore } from "../../src/reports/store.pg";
import { describeReportsStoreContract } from "./reports.contract";
import { pgHarness } from "./harness.pg";

const h = await pgHarness();
if (h) describeReportsStoreContract("postgres", async () => ({ ...h, store: createPgReportsStore(h.pg.sql) }));

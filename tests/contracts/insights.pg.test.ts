import { createPgInsightsStore } from "../../src/insights/store.pg";
import { describeInsightsStoreContract } from "./insights.contract";
import { pgHarness } from "./harness.pg";

const h = await pgHarness();
if (h) describeInsightsStoreContract("postgres", async () => ({ ...h, store: createPgInsightsStore(h.pg.sql) }));

import { createPgRestExecutor } from "../../src/platform/rest/executor.pg";
import { describeRestExecutorContract } from "./rest-executor.contract";
import { pgHarness } from "./harness.pg";

const h = await pgHarness();
// The insights RPCs need the insights store on Postgres (src/insights/store.pg.ts), not built yet.
if (h) describeRestExecutorContract("postgres", async () => ({ ...h, executor: createPgRestExecutor(h.pg.sql) }), { insights: false });

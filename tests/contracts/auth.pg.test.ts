import { createPgAuthStore } from "../../src/platform/auth/store.pg";
import { describeAuthStoreContract } from "./auth.contract";
import { pgHarness } from "./harness.pg";

const h = await pgHarness();
if (h) describeAuthStoreContract("postgres", async () => ({ ...h, store: createPgAuthStore(h.pg.sql) }));

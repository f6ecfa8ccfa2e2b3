import { createPgStatusStore } from "../../src/http/status-store.pg";
import { describeStatusStoreContract } from "./status.contract";
import { pgHarness } from "./harness.pg";

const h = await pgHarness();
if (h) describeStatusStoreContract("postgres", async () => ({ ...h, store: createPgStatusStore(h.pg.sql) }));

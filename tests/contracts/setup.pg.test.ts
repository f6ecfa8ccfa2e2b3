import { createPgSetupStore } from "../../src/setup/store.pg";
import { describeSetupStoreContract } from "./setup.contract";
import { pgHarness } from "./harness.pg";

const h = await pgHarness();
if (h) describeSetupStoreContract("postgres", async () => ({ ...h, store: createPgSetupStore(h.pg.sql) }));

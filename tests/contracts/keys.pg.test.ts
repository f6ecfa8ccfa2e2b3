import { createPgKeyStore } from "../../src/keys/store.pg";
import { describeKeyStoreContract } from "./keys.contract";
import { pgHarness } from "./harness.pg";

const h = await pgHarness();
if (h) describeKeyStoreContract("postgres", async () => ({ ...h, store: createPgKeyStore(h.pg.sql) }));

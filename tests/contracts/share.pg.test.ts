import { createPgShareStore } from "../../src/share/store.pg";
import { describeShareStoreContract } from "./share.contract";
import { pgHarness } from "./harness.pg";

const h = await pgHarness();
if (h) describeShareStoreContract("postgres", async () => ({ ...h, store: createPgShareStore(h.pg.sql) }));

import { createPgDigestStore } from "../../src/digests/store.pg";
import { describeDigestStoreContract } from "./digests.contract";
import { pgHarness } from "./harness.pg";

const h = await pgHarness();
if (h) describeDigestStoreContract("postgres", async () => ({ ...h, store: createPgDigestStore(h.pg.sql) }));

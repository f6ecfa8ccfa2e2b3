import { createPgPixelStore } from "../../src/pixel/store.pg";
import { describePixelStoreContract } from "./pixel.contract";
import { pgHarness } from "./harness.pg";

const h = await pgHarness();
if (h) describePixelStoreContract("postgres", async () => ({ ...h, store: createPgPixelStore(h.pg.sql) }));

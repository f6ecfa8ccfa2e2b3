import { createPgTrackingStore } from "../../src/tracking/store.pg";
import { createPgUnitStore } from "../../src/tracking/units.pg";
import { describeTrackingStoreContract } from "./tracking.contract";
import { pgHarness } from "./harness.pg";
import { createPgQueueStore } from "../../src/queue/store.pg";

const h = await pgHarness();
if (h) describeTrackingStoreContract("postgres", async () => ({ ...h, store: createPgTrackingStore(h.pg.sql), units: createPgUnitStore(h.pg.sql), queue: createPgQueueStore(h.pg.sql) }));

import { createPgDemoHistoryStore } from "../../src/demo/store.pg";
import { describeDemoHistoryStoreContract } from "./demo.contract";
import { pgHarness } from "./harness.pg";
import { createPgQueueStore } from "../../src/queue/store.pg";

const h = await pgHarness();
if (h) describeDemoHistoryStoreContract("postgres", async () => ({ ...h, store: createPgDemoHistoryStore(h.pg.sql, (now) => createPgQueueStore(h.pg.sql, now)) }));

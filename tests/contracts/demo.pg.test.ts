import { createPgDemoHistoryStore } from "../../src/demo/store.pg";
import { describeDemoHistoryStoreContract } from "./demo.contract";
import { pgHarness } from "./harness.pg";
import { queueStandIn } from "./queue-standin.pg";

const h = await pgHarness();
if (h) describeDemoHistoryStoreContract("postgres", async () => ({ ...h, store: createPgDemoHistoryStore(h.pg.sql, (now) => queueStandIn(h.pg.sql, now)) }));

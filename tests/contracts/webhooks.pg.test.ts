import { createPgWebhookStore } from "../../src/webhooks/store.pg";
import { describeWebhookStoreContract } from "./webhooks.contract";
import { pgHarness } from "./harness.pg";

const h = await pgHarness();
if (h) describeWebhookStoreContract("postgres", async () => ({ ...h, store: createPgWebhookStore(h.pg.sql) }));

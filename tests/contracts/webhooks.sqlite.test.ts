import { createSqliteWebhookStore } from "../../src/webhooks/store.sqlite";
import { describeWebhookStoreContract } from "./webhooks.contract";
import { sqliteHarness } from "./harness";

describeWebhookStoreContract("sqlite", async () => {
  const h = sqliteHarness();
  return { ...h, store: createSqliteWebhookStore(h.dbh.sqlite) };
});

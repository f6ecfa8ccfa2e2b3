import { createPgCrawlerStore } from "../../src/crawlers/store.pg";
import { describeCrawlerStoreContract } from "./crawlers.contract";
import { pgHarness } from "./harness.pg";

const h = await pgHarness();
if (h) describeCrawlerStoreContract("postgres", async () => ({ ...h, store: createPgCrawlerStore(h.pg.sql) }));

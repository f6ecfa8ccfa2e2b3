import { createPgPortfolioStore } from "../../src/portfolio/store.pg";
import { describePortfolioStoreContract } from "./portfolio.contract";
import { pgHarness } from "./harness.pg";

const h = await pgHarness();
if (h) describePortfolioStoreContract("postgres", async () => ({ ...h, store: createPgPortfolioStore(h.pg.sql) }));

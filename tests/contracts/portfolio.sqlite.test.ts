import { createSqlitePortfolioStore } from "../../src/portfolio/store.sqlite";
import { describePortfolioStoreContract } from "./portfolio.contract";
import { sqliteHarness } from "./harness";

describePortfolioStoreContract("sqlite", async () => {
  const h = sqliteHarness();
  return { ...h, store: createSqlitePortfolioStore(h.dbh.sqlite) };
});

import { createSqliteDigestStore } from "../../src/digests/store.sqlite";
import { describeDigestStoreContract } from "./digests.contract";
import { sqliteHarness } from "./harness";

describeDigestStoreContract("sqlite", async () => {
  const h = sqliteHarness();
  return { ...h, store: createSqliteDigestStore(h.dbh.sqlite) };
});

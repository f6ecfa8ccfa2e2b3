import { createSqliteKeyStore } from "../../src/keys/store.sqlite";
import { describeKeyStoreContract } from "./keys.contract";
import { sqliteHarness } from "./harness";

describeKeyStoreContract("sqlite", async () => {
  const h = sqliteHarness();
  return { ...h, store: createSqliteKeyStore(h.dbh.sqlite) };
});

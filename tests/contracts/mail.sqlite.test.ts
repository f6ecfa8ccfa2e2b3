import { createSqliteMailStore } from "../../src/mail/store.sqlite";
import { describeMailStoreContract } from "./mail.contract";
import { sqliteHarness } from "./harness";

describeMailStoreContract("sqlite", async () => {
  const h = sqliteHarness();
  return { ...h, store: createSqliteMailStore(h.dbh.sqlite) };
});

import { createSqliteScheduleStore } from "../../src/schedule/store.sqlite";
import { describeScheduleStoreContract } from "./schedule.contract";
import { sqliteHarness } from "./harness";

describeScheduleStoreContract("sqlite", async () => {
  const h = sqliteHarness();
  return { ...h, store: createSqliteScheduleStore(h.dbh.sqlite) };
});

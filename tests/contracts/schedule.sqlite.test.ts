import { openDatabase } from "../../src/database";
import { createSqliteScheduleStore } from "../../src/schedule/store.sqlite";
import { describeScheduleStoreContract } from "./schedule.contract";
import { sqliteHarness } from "./harness";

describeScheduleStoreContract("sqlite", async () => {
  const h = sqliteHarness();
  const second = async () => {
    // Another connection to the same file (in the same process: one process per DATA_DIR).
    const dbh = openDatabase(h.dbh.sqlite.filename, { migrate: false });
    return { store: createSqliteScheduleStore(dbh.sqlite), close: async () => dbh.close() };
  };
  return { ...h, store: createSqliteScheduleStore(h.dbh.sqlite), second };
});

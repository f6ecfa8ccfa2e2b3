import { createSqliteRestExecutor } from "../../src/platform/rest/executor.sqlite";
import { describeRestExecutorContract } from "./rest-executor.contract";
import { sqliteHarness } from "./harness";

describeRestExecutorContract("sqlite", async () => {
  const h = sqliteHarness();
  return { ...h, executor: createSqliteRestExecutor(h.dbh.sqlite) };
});

import { expect, test } from "bun:test";
import { createPgRestExecutor } from "../../src/platform/rest/executor.pg";
import { sql } from "../../src/platform/rest/sql-fragment";
import { describeRestExecutorContract } from "./rest-executor.contract";
import { pgHarness } from "./harness.pg";

const h = await pgHarness();
// The insights RPCs need the insights store on Postgres (src/insights/store.pg.ts), not built yet.
if (h) describeRestExecutorContract("postgres", async () => ({ ...h, executor: createPgRestExecutor(h.pg.sql) }));

// Postgres only: instances share the database, so one's data version must follow another's commits
// (and writes made outside /rest/v1) — within the poll interval, since dataVersion() is synchronous.
const own = h && (await pgHarness());
if (own)
  test("dataVersion follows commits made by another instance and by other writers", async () => {
    const mine = createPgRestExecutor(own.pg.sql);
    const theirs = createPgRestExecutor(own.pg.sql);
    const settled = async (executor: typeof mine) => {
      executor.dataVersion();
      await Bun.sleep(600);
      return executor.dataVersion();
    };
    const before = await settled(mine);
    await theirs.session(5_000, (s) => s.transaction((tx) => tx.values(sql`INSERT INTO organizations (name, slug) VALUES (${"Other Instance"}, ${"other-instance"})`)));
    const afterTheirs = await settled(mine);
    expect(afterTheirs).not.toBe(before);
    await own.fixtures.organization("Written Elsewhere");
    expect(await settled(mine)).not.toBe(afterTheirs);
    await own.close();
  });

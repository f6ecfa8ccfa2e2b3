// A client report stops at the request's deadline (review finding): a share link's holder, or any
// member, asking for a long window again and again must not hold the serving thread past
// STATEMENT_TIMEOUT_MS — the report's steps check the deadline, as the RPCs' do, and answer 503 57014.
import { afterAll, expect, test } from "bun:test";
import { buildClientReport, withDeadline } from "../../src/client-report/service";
import { errorResponse } from "../../src/http/errors";
import { createSqliteClientReportStore } from "../../src/client-report/store.sqlite";
import { createSqliteInsightsStore } from "../../src/insights/store.sqlite";
import type { InsightsStore } from "../../src/insights/store";
import { sqliteHarness } from "../contracts/harness";

const h = sqliteHarness();
afterAll(() => h.close());

/** The insights store, each read 40 ms slower: a report over a long window of a busy brand. */
function slowInsights(): InsightsStore {
  const real = createSqliteInsightsStore(h.dbh.sqlite);
  return new Proxy(real, {
    get: (target, name) => {
      const value = Reflect.get(target, name);
      return typeof value === "function" ? async (...args: unknown[]) => (await Bun.sleep(40), value.apply(target, args)) : value;
    },
  });
}

test("a share link's report past the deadline answers 503 57014 within about the deadline; with time enough it is made", async () => {
  const org = await h.fixtures.organization();
  const brandId = await h.fixtures.brand(org);
  const deps = { store: createSqliteClientReportStore(h.dbh.sqlite), insights: slowInsights() };
  const started = performance.now();
  const window = { from: "2026-01-01", to: "2026-10-31" };
  const late = await buildClientReport(withDeadline(deps, 100), { brandId, window }).catch((error) => error);
  expect({ status: late.status, code: late.code }).toEqual({ status: 503, code: "57014" });
  // On /api it is the same error Postgres' own statement_timeout gives there, whichever fired first.
  expect(((await errorResponse(late, "api").json()) as { error: { code: string } }).error.code).toBe("statement_timeout");
  // Stopped at the first step past 100 ms, not after every read (each 40 ms slower, a dozen and more).
  expect(performance.now() - started).toBeLessThan(400);
  const made = await buildClientReport(withDeadline(deps, 60_000), { brandId, window });
  expect(made.html).toContain("<html");
});

// The /rest/v1 executor's contract (src/platform/rest/executor.ts), for every backend: statements
// built with the backend's dialect run in a request's session, writes commit or roll back as one
// transaction, the statement deadline answers 57014, and constraint violations read the same.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { AppError } from "../../src/http/errors";
import type { Caller } from "../../src/platform/auth/caller";
import { constraintError } from "../../src/platform/rest/constraints";
import type { RestExecutor, RestSession } from "../../src/platform/rest/executor";
import { buildSchemaCache } from "../../src/platform/rest/schema-cache";
import { raw, sql } from "../../src/platform/rest/sql-fragment";
import * as schema from "../../src/db/schema";
import type { Harness } from "./harness";

const LONG = 60_000;

/** `insights: false` while the backend's insights store does not exist yet (its case is skipped, visibly). */
export function describeRestExecutorContract(name: string, make: () => Promise<Harness & { executor: RestExecutor }>, options: { insights?: boolean } = {}) {
  describe(`RestExecutor contract (${name})`, () => {
    let h: Harness & { executor: RestExecutor };
    beforeAll(async () => void (h = await make()));
    afterAll(() => h.close());

    const q = (strings: TemplateStringsArray, ...values: unknown[]) => sql(strings, ...values);
    const id = (n: string) => h.executor.dialect.ident(n);
    const run = <T>(work: (s: RestSession) => Promise<T>, timeoutMs = LONG) => h.executor.session(timeoutMs, work);
    const orgNamed = (s: RestSession, slug: string) => s.values(q`SELECT ${id("name")} FROM ${id("organizations")} WHERE ${id("slug")} = ${slug}`);
    const insertOrg = (s: RestSession, slug: string) => s.values(q`INSERT INTO ${id("organizations")} (${id("name")}, ${id("slug")}) VALUES (${slug.toUpperCase()}, ${slug}) RETURNING ${id("id")}`);
    /** The error a promise rejects with (fails the case when it resolves). */
    const failure = async (promise: Promise<unknown>) => {
      const outcome = await promise.then(
        () => null,
        (error: unknown) => ({ error }),
      );
      expect(outcome).not.toBeNull();
      return outcome!.error;
    };

    test("schemaCache: the schema's tables, columns, keys and relationships, built once", async () => {
      const cache = h.executor.schemaCache();
      expect(h.executor.schemaCache()).toBe(cache);
      const brands = cache.tables.get("brands")!;
      expect(brands.primaryKey).toEqual(["id"]);
      expect(brands.columns.get("organization_id")).toMatchObject({ type: "uuid", notNull: true });
      expect(brands.foreignKeys.some((fk) => fk.column === "organization_id" && fk.refTable === "organizations" && fk.refColumn === "id")).toBe(true);
      expect(cache.tables.get("organizations")!.uniqueKeys.some((k) => k.columns.join() === "slug")).toBe(true);
      expect(cache.relationshipsOf("organizations").some((r) => r.table === "brands" && !r.toOne)).toBe(true);
    });

    test("values: rows as arrays of column values in select order; none for no match", async () => {
      const org = await h.fixtures.organization("Exec Read");
      const rows = await run((s) => s.values(q`SELECT ${id("slug")}, ${id("name")} FROM ${id("organizations")} WHERE ${id("id")} = ${org}`));
      expect(rows).toEqual([["exec read", "Exec Read"]]);
      expect(await run((s) => orgNamed(s, "no-such-org"))).toEqual([]);
    });

    test("inList binds a list as one parameter: the statement text is the same for any length", async () => {
      const a = await h.fixtures.organization("List A");
      const b = await h.fixtures.organization("List B");
      const list = (ids: string[], negated = false) => q`SELECT ${id("name")} FROM ${id("organizations")} WHERE ${h.executor.dialect.inList(id("id"), ids, negated)} ORDER BY ${id("name")}`;
      expect(list([a]).text).toBe(list([a, b, crypto.randomUUID()]).text);
      expect(await run((s) => s.values(list([a, b, crypto.randomUUID()])))).toEqual([["List A"], ["List B"]]);
      expect(await run((s) => s.values(list([])))).toEqual([]);
      // Negated: every other organization, none of the listed ones.
      const others = (await run((s) => s.values(list([a, b], true)))).map((r) => r[0]);
      expect(others).not.toContain("List A");
      expect(others).not.toContain("List B");
      expect((await run((s) => s.values(list([], true)))).length).toBe(others.length + 2);
    });

    test("transaction: committed when the work resolves, its rows readable afterwards", async () => {
      const result = await run((s) => s.transaction(async (tx) => (await insertOrg(tx, "exec-commit")).length));
      expect(result).toBe(1);
      expect(await run((s) => orgNamed(s, "exec-commit"))).toEqual([["EXEC-COMMIT"]]);
    });

    test("transaction: rolled back when the work throws, after writes; the work's own error comes out", async () => {
      const boom = new AppError(406, "PGRST116", "Cannot coerce the result to a single JSON object");
      const error = await failure(
        run((s) =>
          s.transaction(async (tx) => {
            await insertOrg(tx, "exec-rollback-a");
            await insertOrg(tx, "exec-rollback-b");
            expect(await orgNamed(tx, "exec-rollback-a")).toEqual([["EXEC-ROLLBACK-A"]]);
            throw boom;
          }),
        ),
      );
      expect(error).toBe(boom);
      expect(await run((s) => orgNamed(s, "exec-rollback-a"))).toEqual([]);
      expect(await h.inspect("SELECT id FROM organizations WHERE slug IN ('exec-rollback-a', 'exec-rollback-b')")).toEqual([]);
      // The connection is usable again: a later transaction commits.
      await run((s) => s.transaction((tx) => insertOrg(tx, "exec-after-rollback")));
      expect(await run((s) => orgNamed(s, "exec-after-rollback"))).toEqual([["EXEC-AFTER-ROLLBACK"]]);
    });

    test("transaction inside a transaction joins it: one commit or one rollback for both", async () => {
      await failure(
        run((s) =>
          s.transaction(async (tx) => {
            await tx.transaction((inner) => insertOrg(inner, "exec-nested"));
            throw new Error("outer fails");
          }),
        ),
      );
      expect(await run((s) => orgNamed(s, "exec-nested"))).toEqual([]);
    });

    test("a failed statement inside a transaction rolls back the statements before it", async () => {
      await failure(
        run((s) =>
          s.transaction(async (tx) => {
            await insertOrg(tx, "exec-first");
            await insertOrg(tx, "exec-first"); // unique slug
          }),
        ),
      );
      expect(await run((s) => orgNamed(s, "exec-first"))).toEqual([]);
    });

    // Counts to a large number over a row source the deadline probe looks at on every row.
    const slowCount = () => {
      const probe = h.executor.dialect.deadlineProbe ?? raw("1 = 1");
      return q`WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 200000000) SELECT count(*) FROM c WHERE ${probe}`;
    };

    test("statement deadline: a statement running past the request's timeout fails with 57014, quickly", async () => {
      const started = performance.now();
      const error = await failure(run((s) => s.values(slowCount()), 50));
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe("57014");
      expect((error as AppError).status).toBe(503);
      expect(performance.now() - started).toBeLessThan(5_000);
      // The next request has its own deadline: quick statements pass.
      expect(await run((s) => s.values(q`SELECT 1`), 50)).toEqual([[1]]);
    });

    test("statement deadline inside a write transaction rolls the write back", async () => {
      const error = await failure(
        run(
          (s) =>
            s.transaction(async (tx) => {
              await insertOrg(tx, "exec-timed-out");
              await tx.values(slowCount());
            }),
          50,
        ),
      );
      expect((error as AppError).code).toBe("57014");
      expect(await run((s) => orgNamed(s, "exec-timed-out"))).toEqual([]);
    });

    test("checkDeadline: quiet within the time, 57014 once it is up", async () => {
      await run(async (s) => s.checkDeadline(), LONG);
      const error = await failure(
        run(async (s) => {
          await Bun.sleep(30);
          s.checkDeadline();
        }, 5),
      );
      expect((error as AppError).code).toBe("57014");
    });

    const cache = buildSchemaCache(schema);
    const violationOf = async (statement: ReturnType<typeof q>) => {
      const error = await failure(run((s) => s.transaction((tx) => tx.values(statement))));
      return h.executor.dialect.constraintViolation(error);
    };
    const codeOf = async (table: string, statement: ReturnType<typeof q>) => {
      const mapped = await constraintError(cache.tables.get(table)!, await violationOf(statement), { uniqueValues: async () => null, missingReference: async () => null });
      return mapped?.code;
    };

    test("constraint violations read the same on every backend: unique 23505, foreign key 23503, not null 23502, check 23514", async () => {
      const org = await h.fixtures.organization("Exec Constraints");
      const brand = await h.fixtures.brand(org);
      expect(await violationOf(q`INSERT INTO ${id("organizations")} (${id("name")}, ${id("slug")}) VALUES ('x', 'exec constraints')`)).toMatchObject({ kind: "unique", columns: ["slug"] });
      expect(await codeOf("organizations", q`INSERT INTO ${id("organizations")} (${id("name")}, ${id("slug")}) VALUES ('x', 'exec constraints')`)).toBe("23505");
      expect(await violationOf(q`INSERT INTO ${id("brands")} (${id("organization_id")}, ${id("name")}, ${id("slug")}) VALUES (${crypto.randomUUID()}, 'b', 'b')`)).toEqual({ kind: "foreign_key" });
      expect(await codeOf("brands", q`INSERT INTO ${id("brands")} (${id("organization_id")}, ${id("name")}, ${id("slug")}) VALUES (${crypto.randomUUID()}, 'b', 'b')`)).toBe("23503");
      expect(await violationOf(q`INSERT INTO ${id("organizations")} (${id("name")}, ${id("slug")}) VALUES (NULL, 'exec-null')`)).toEqual({ kind: "not_null", column: "name" });
      expect(await codeOf("organizations", q`INSERT INTO ${id("organizations")} (${id("name")}, ${id("slug")}) VALUES (NULL, 'exec-null')`)).toBe("23502");
      const samples = q`INSERT INTO ${id("brand_platforms")} (${id("brand_id")}, ${id("platform")}, ${id("samples")}) VALUES (${brand}, 'chatgpt', 11)`;
      expect(await violationOf(samples)).toEqual({ kind: "check", constraint: "brand_platforms_samples_range" });
      expect(await codeOf("brand_platforms", samples)).toBe("23514");
      // Anything else is no constraint violation.
      expect(h.executor.dialect.constraintViolation(new Error("boom"))).toBeNull();
    });

    test("onConflict: DO NOTHING keeps the row; DO UPDATE with a guard updates only where the guard holds", async () => {
      const d = h.executor.dialect;
      const insert = (name: string, update: string[] | null, guard: ReturnType<typeof q> | null) =>
        q`INSERT INTO ${id("organizations")} (${id("name")}, ${id("slug")}) VALUES (${name}, 'exec-upsert')${d.onConflict(["slug"], update, guard)} RETURNING ${id("name")}`;
      await run((s) => s.transaction((tx) => tx.values(insert("First", null, null))));
      expect(await run((s) => s.transaction((tx) => tx.values(insert("Second", null, null))))).toEqual([]);
      expect(await run((s) => s.transaction((tx) => tx.values(insert("Third", ["name"], q`${id("organizations")}.${id("name")} = 'nobody'`))))).toEqual([]);
      expect(await run((s) => s.transaction((tx) => tx.values(insert("Fourth", ["name"], null))))).toEqual([["Fourth"]]);
      expect(await run((s) => orgNamed(s, "exec-upsert"))).toEqual([["Fourth"]]);
    });

    test("dataVersion: the same while nothing is written, different after a commit (none after a rollback is required)", async () => {
      const before = h.executor.dataVersion();
      await run((s) => orgNamed(s, "exec-version"));
      expect(h.executor.dataVersion()).toBe(before);
      await run((s) => s.transaction((tx) => insertOrg(tx, "exec-version")));
      const after = h.executor.dataVersion();
      expect(after).not.toBe(before);
      expect(h.executor.dataVersion()).toBe(after);
    });

    test.skipIf(options.insights === false)("insight: another organization's brand reads as a brand with no rows; the caller's own brand is computed", async () => {
      const user = await h.fixtures.user();
      const org = await h.fixtures.organization();
      await h.fixtures.member(org, user, "member");
      const brand = await h.fixtures.brand(org);
      const member: Caller = { role: "authenticated", user: { id: user, email: "m@example.com", sessionId: "s", claims: {} as never }, orgRoles: new Map([[org, "member"]]) };
      const stranger: Caller = { role: "authenticated", user: { id: crypto.randomUUID(), email: "s@example.com", sessionId: "s", claims: {} as never }, orgRoles: new Map() };
      const ask = (caller: Caller) => run((s) => s.insight({ name: "insights_overview", args: { p_brand_id: brand }, today: new Date("2026-05-01T00:00:00Z"), caller }));
      const own = await ask(member);
      const hidden = await ask(stranger);
      expect(own).toBeTruthy();
      // A brand with no data and a brand the caller may not see read alike.
      expect(JSON.stringify(hidden)).toBe(JSON.stringify(own).replaceAll(brand, "00000000-0000-0000-0000-000000000000"));
    });

    test("a request beside an open write transaction never reads its uncommitted rows", async () => {
      let beside: Promise<unknown[][]> | undefined;
      await run((s) =>
        s.transaction(async (tx) => {
          await insertOrg(tx, "exec-isolated");
          beside = run((other) => orgNamed(other, "exec-isolated"));
          await Bun.sleep(5);
          throw new Error("rolled back");
        }),
      ).catch(() => undefined);
      // It read before the transaction or after its rollback: the row never existed for it.
      expect(await beside!).toEqual([]);
    });

    test("sessions share nothing: a request's deadline does not reach another running beside it", async () => {
      const slow = run(async (s) => {
        await Bun.sleep(40);
        return s.values(q`SELECT 2`);
      }, LONG);
      const quick = failure(run((s) => s.values(slowCount()), 10));
      expect(((await quick) as AppError).code).toBe("57014");
      expect(await slow).toEqual([[2]]);
    });
  });
}

// The /rest/v1 executor on Postgres (executor.ts says what each operation does). A request's session
// is one transaction on a pooled connection (sql.begin): `SET LOCAL statement_timeout` gives every
// statement the request's timeout, JavaScript steps between statements check the deadline, and a
// write transaction is a savepoint inside it (rolled back alone; committed with the request).
// Statements come from the fragment builder with `?` placeholders: they are numbered here, and every
// value is bound as text of unknown type so that Postgres reads it as the type of its column
// (SQLite's loose typing gave the same; the dialect casts where the context gives no type).
import type { SQL } from "bun";
import { pgCode } from "../../db/pg/values";
import { INSIGHT_RPCS, insightsContext, mayReadBrand } from "../../insights/rpc";
import { createPgInsightsStore, formerTablesOf } from "../../insights/store.pg";
import type { InsightsStore } from "../../insights/store";
import { AppError } from "../../http/errors";
import { statementTimeout } from "./deadline";
import { PG_DIALECT } from "./dialect.pg";
import type { RestExecutor, RestExecutorOptions, RestSession } from "./executor";
import type { Caller } from "../auth/caller";
import { insufficientPrivilege } from "./policies";
import type { SchemaCache } from "./schema-cache";
import { buildPgSchemaCache } from "./schema-cache.pg";
import type { Sql } from "./sql-fragment";

/** `?` → `$n` outside quoted text and identifiers (the builder never emits `?` operators). */
export function numberPlaceholders(text: string): string {
  let n = 0;
  let out = "";
  let quote: string | null = null;
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = null;
      out += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      out += ch;
    } else out += ch === "?" ? `$${++n}` : ch;
  }
  return out;
}

/** A value as the text Postgres parses for the column it meets (SQLite's 0/1 booleans are valid boolean input). */
function bindable(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") return String(value);
  if (value instanceof Date) return value.toISOString();
  return JSON.stringify(value);
}

/** Result values in the shapes the SQLite executor gives: ISO strings for timestamps. */
const plainValue = (value: unknown) => (value instanceof Date ? value.toISOString() : value);

/**
 * A failed statement as PostgREST would relay it, where the failure is the request's or the
 * server's condition rather than a bug: the timeout, invalid input (class 22: a value the column
 * type refuses), a statement the request asked for that cannot be (42), a program limit (54),
 * insufficient resources (53). Anything else stays as it is
 * (constraint violations are worded by query.ts; the rest is a 500).
 */
function requestError(error: unknown, ms: number, caller?: Caller): unknown {
  const code = pgCode(error);
  if (!code) return error;
  const message = (error as Error).message;
  if (code === "57014") return statementTimeout(ms);
  // Refused by the database's privileges or policies, or by a rule's trigger (policies.pg.ts).
  if (code === "42501" && caller) return insufficientPrivilege(caller, message);
  if (code === "P0001") return new AppError(400, code, message, { hint: (error as { hint?: string }).hint ?? null });
  if (code.startsWith("22")) return new AppError(400, code, message);
  // Class 42 as PostgREST relays it: a request the statement cannot express (a cast the column's
  // type has none to, `select=id::int` on a uuid) is the request's error.
  if (code.startsWith("42")) return new AppError(400, code, message);
  if (code.startsWith("54")) return new AppError(400, code, message);
  // An upsert whose body repeats a key ("cannot affect row a second time"): the request's error.
  if (code === "21000") return new AppError(400, code, message);
  // Insufficient resources, or a deadlock or serialization failure lost to a concurrent request
  // (nothing was written): again.
  if (code.startsWith("53") || code === "40001" || code === "40P01") return new AppError(503, code, message, { headers: { "retry-after": "1" } });
  return error;
}

const WRITE = /^\s*(INSERT|UPDATE|DELETE)\b/i;

/** How many times a request runs when it loses a race to a concurrent one (a deadlock, a serialization failure). */
const LOST_RACE_TRIES = 3;
const LOST_RACE_PAUSE_MS = 50;
const lostRace = (error: unknown) => pgCode(error) === "40P01" || pgCode(error) === "40001";

const savepoint = <T>(tx: SQL, fn: (sp: SQL) => Promise<T>): Promise<T> => (tx as SQL & { savepoint<U>(fn: (sp: SQL) => Promise<U>): Promise<U> }).savepoint(fn);

/**
 * The claims a request runs with (policies.pg.ts reads them): a user's token claims, or the role
 * alone; and the organizations and roles the server resolved for the caller (`aw_org_roles`: an API
 * key's one organization and role, narrower than its user's), or the brand a share link opens.
 */
export function requestClaims(caller: Caller): Record<string, unknown> {
  const base: Record<string, unknown> = caller.user ? { ...caller.user.claims } : { role: caller.role };
  if (caller.role !== "authenticated") return base;
  return { ...base, aw_org_roles: Object.fromEntries(caller.orgRoles), ...(caller.shareBrandId ? { aw_share_brand: caller.shareBrandId } : {}) };
}

/** How often the data version is refreshed from the database (writes by other instances and other stores). */
const VERSION_POLL_MS = 250;

export function createPgRestExecutor(sql: SQL, options: RestExecutorOptions = {}): RestExecutor {
  const { onStatement, sourceCategories } = options;
  // Asked once, on the pool: the insights' stores are made per request.
  const formerTables = formerTablesOf(sql);
  const texts = new Map<string, string>();
  let cache: SchemaCache | undefined;
  // The response cache's version: writes this executor committed (bumped at once) and the next
  // transaction id of the cluster (it moves only when some transaction writes), polled.
  let localWrites = 0;
  let clusterXid = "";
  let polling: ReturnType<typeof setInterval> | undefined;
  let failures = 0;
  async function refreshVersion() {
    try {
      const [row] = await sql`SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS xid`;
      clusterXid = (row as { xid: string }).xid;
      failures = 0;
    } catch {
      // The server is away for now (the version stays), or for good: the pool was closed.
      if (++failures >= 40) clearInterval(polling);
    }
  }
  /** Polling starts with the first request or version asked (not for an executor never used). */
  function startPolling() {
    if (polling) return;
    polling = setInterval(refreshVersion, VERSION_POLL_MS);
    polling.unref?.();
    void refreshVersion();
  }

  function numbered(text: string): string {
    let out = texts.get(text);
    if (out === undefined) {
      out = numberPlaceholders(text);
      if (texts.size >= 512) texts.clear();
      texts.set(text, out);
    }
    return out;
  }

  function session(tx: SQL, at: number, ms: number, state: { wrote: boolean }, inTransaction: boolean, caller?: Caller): RestSession {
    const check = () => {
      if (performance.now() > at) throw statementTimeout(ms);
    };
    const self: RestSession = {
      async values(query: Sql) {
        check();
        onStatement?.(query.text);
        try {
          const text = numbered(query.text);
          const params = query.params.map(bindable) as never[];
          // A write that fails inside a transaction undoes itself only, as a statement does on
          // SQLite: the statements that explain a constraint failure (query.ts) can still run.
          const rows = (
            inTransaction && WRITE.test(text) ? await savepoint(tx, (sp) => sp.unsafe(text, params).values()) : await tx.unsafe(text, params).values()
          ) as unknown[][];
          return rows.map((row) => row.map(plainValue));
        } catch (error) {
          throw requestError(error, ms, caller);
        }
      },
      async transaction(work) {
        if (inTransaction) return work(self);
        check();
        state.wrote = true;
        // A savepoint: a write that fails rolls back alone; one that succeeds commits with the request.
        return savepoint(tx, (sp) => work(session(sp, at, ms, state, true, caller)));
      },
      checkDeadline: check,
      async insight({ name, args, today, caller }) {
        // The insights read in the request's transaction, under the caller's role and claims: the
        // database scopes every table they read by its policies (a brand the caller may not read
        // also reads as one with no rows before that); the deadline is checked between their steps.
        // A share link's claims open no table (the policies are by organization); it reads its one
        // brand's insights, which service.ts allows it and nothing else, as the server — still in
        // this transaction, so the request's statement_timeout holds and no second connection is
        // taken (through the pool, a burst of share-link calls could hold every connection while
        // each waited for one more).
        const rpc = INSIGHT_RPCS[name]!;
        const run = (insights: InsightsStore) => rpc.run(insightsContext(insights, sourceCategories, check), args, today, (brandId) => mayReadBrand(insights, { role: caller.role, orgIds: caller.orgRoles.keys() }, brandId));
        try {
          if (!caller.shareBrandId) return await run(createPgInsightsStore(tx, { asCaller: true, formerTables, inTransaction: true }));
          await tx`SELECT set_config('role', 'none', true)`;
          const out = await run(createPgInsightsStore(tx, { formerTables, inTransaction: true }));
          // A failed read leaves the transaction aborted (rolled back whole): the role needs no restoring then.
          await tx`SELECT set_config('role', ${caller.role}, true)`;
          return out;
        } catch (error) {
          // As the statements above answer (the timeout as 503 57014, a policy's refusal as 403), not as a 500.
          throw requestError(error, ms, caller);
        }
      },
    };
    return self;
  }

  return {
    dialect: PG_DIALECT,
    schemaCache: () => (cache ??= buildPgSchemaCache()),
    async session(timeoutMs, work, caller) {
      startPolling();
      const at = performance.now() + timeoutMs;
      const state = { wrote: false };
      const attempt = () =>
        sql.begin(async (tx) => {
          // One statement sets the request's timeout (what is left of it), role and claims, for this
          // transaction only (PostgREST's set_config(…, true)); the role's policies (policies.pg.ts) then apply.
          const timeout = String(Math.max(1, Math.ceil(at - performance.now())));
          if (caller) await tx`SELECT set_config('statement_timeout', ${timeout}, true), set_config('role', ${caller.role}, true), set_config('request.jwt.claims', ${JSON.stringify(requestClaims(caller))}, true)`;
          else await tx`SELECT set_config('statement_timeout', ${timeout}, true)`;
          return work(session(tx, at, timeoutMs, state, false, caller));
        });
      let result: unknown;
      for (let tries = 1; ; tries++) {
        try {
          state.wrote = false;
          result = await attempt();
          break;
        } catch (error) {
          // A deadlock or serialization failure rolled the whole request back (nothing of it was
          // written): it runs again, at most LOST_RACE_TRIES times and within its own time, after a
          // short random pause so the two sides do not meet again in step.
          if (!lostRace(error) || tries >= LOST_RACE_TRIES || performance.now() + LOST_RACE_PAUSE_MS >= at) throw error;
          await Bun.sleep(Math.random() * LOST_RACE_PAUSE_MS);
        }
      }
      if (state.wrote) {
        localWrites++;
        // The cluster's counter moved with this commit: read it now, so the next poll does not
        // change the version again for a write this executor already counted.
        await refreshVersion();
      }
      return result as Awaited<ReturnType<typeof work>>;
    },
    dataVersion() {
      startPolling();
      return `${localWrites}:${clusterXid}`;
    },
  };
}

// The /rest/v1 executor on SQLite (executor.ts says what each operation does): prepared statements
// kept by SQL text, the statement deadline as a per-row SQL function (deadline.sqlite.ts), write
// transactions that take the write lock at BEGIN, and the data version the response cache checks.
import type { Database, Statement } from "bun:sqlite";
import { INSIGHT_RPCS, insightsContext, mayReadBrand } from "../../insights/rpc";
import { createSqliteInsightsStore } from "../../insights/store.sqlite";
import { sqliteDeadline } from "./deadline.sqlite";
import { statementTimeout } from "./deadline";
import { SQLITE_DIALECT } from "./dialect.sqlite";
import type { RestExecutor, RestExecutorOptions, RestSession } from "./executor";
import type { Sql } from "./sql-fragment";
import * as schema from "../../db/schema";
import { buildSchemaCache, type SchemaCache } from "./schema-cache";

const STATEMENT_CACHE = 256;

/** Prepared statements by SQL text (a bounded LRU: query shapes repeat, garbage query strings do not). */
function statementCache(sqlite: Database) {
  const statements = new Map<string, Statement>();
  return function prepared(text: string): Statement {
    let statement = statements.get(text);
    if (statement) statements.delete(text);
    else {
      statement = sqlite.prepare(text);
      if (statements.size >= STATEMENT_CACHE) {
        const [oldest, old] = statements.entries().next().value!;
        statements.delete(oldest);
        old.finalize();
      }
    }
    statements.set(text, statement);
    return statement;
  };
}

export function createSqliteRestExecutor(sqlite: Database, options: RestExecutorOptions = {}): RestExecutor {
  const prepared = statementCache(sqlite);
  const deadline = sqliteDeadline(sqlite);
  const versionQuery = sqlite.prepare<[number, number], []>("SELECT total_changes(), (SELECT data_version FROM pragma_data_version())");
  const { onStatement, sourceCategories } = options;
  const insights = createSqliteInsightsStore(sqlite);
  // A write transaction open on this connection: other requests sharing it (in-process, without
  // threads) wait for its end instead of reading its uncommitted rows or writing into it.
  let open: Promise<void> | null = null;
  let cache: SchemaCache | undefined;

  function session(at: number, ms: number, inTransaction: boolean): RestSession {
    const check = () => {
      if (performance.now() > at) throw statementTimeout(ms);
    };
    const self: RestSession = {
      async values(query: Sql) {
        if (!inTransaction) while (open) await open;
        onStatement?.(query.text);
        return deadline.under(at, ms, () => prepared(query.text).values(...(query.params as never[])) as unknown[][]);
      },
      async transaction(work) {
        if (inTransaction) return work(self);
        while (open) await open;
        let end!: () => void;
        open = new Promise((resolve) => (end = resolve));
        try {
          // IMMEDIATE: workers write too; a late lock upgrade could not wait for them.
          sqlite.run("BEGIN IMMEDIATE");
          try {
            const result = await work(session(at, ms, true));
            sqlite.run("COMMIT");
            return result;
          } catch (error) {
            if (sqlite.inTransaction) sqlite.run("ROLLBACK");
            throw error;
          }
        } finally {
          open = null;
          end();
        }
      },
      checkDeadline: check,
      async insight({ name, args, today, caller }) {
        if (!inTransaction) while (open) await open;
        const rpc = INSIGHT_RPCS[name]!;
        // The insights await their store, so the deadline is kept by `check` between their steps
        // (their statements are short reads of rollups), not by the per-row SQL function.
        const ctx = insightsContext(insights, sourceCategories, check);
        return rpc.run(ctx, args, today, (brandId) => mayReadBrand(insights, { role: caller.role, orgIds: caller.orgRoles.keys() }, brandId));
      },
    };
    return self;
  }

  return {
    dialect: SQLITE_DIALECT,
    // The Drizzle schema of the SQLite database (src/db/schema.ts) is the source of truth.
    schemaCache: () => (cache ??= buildSchemaCache(schema)),
    session(timeoutMs, work) {
      return work(session(performance.now() + timeoutMs, timeoutMs, false));
    },
    dataVersion() {
      // This connection's own writes (cascades included) and commits by any other connection.
      const [changes, dataVersion] = versionQuery.values()[0] as [number, number];
      return `${changes}:${dataVersion}`;
    },
  };
}

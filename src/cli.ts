// The CLI: serve (default) | migrate | keys | --help | --version (started by src/main.ts).
import { ConfigError, loadConfig, setupWarnings, StartupError, type Config, type Env } from "./config";
import { CLI_BUSY_TIMEOUT_MS, dataDirHeld, describeDatabaseFailure, lockDataDir, prepareDataDir } from "./db/open";
import { migratePostgresDatabase, openDataDirDatabase, openPostgresDatabase, prepareSchema } from "./database";
import { GONE_AFTER_MS } from "./http/instances";
import type { Backend, Stores } from "./stores";

/** Commands beside a running server wait for its write lock rather than fail half-way. */
const CLI_DATABASE = { busyTimeoutMs: CLI_BUSY_TIMEOUT_MS };
import { ensureSecrets, type Secrets } from "./secrets";
import { startServer } from "./server";
import { VERSION } from "./version";

const HELP = `answerwatch ${VERSION} — track how brands appear in AI answers

Usage: answerwatch [command] [options]

Commands:
  serve            Start the server (default): serve [--port N] [--host H] [--data-dir DIR]
                   (the flags win over PORT, HOST and DATA_DIR)
  migrate          Apply database migrations and exit
  keys             Print the anon and service_role API keys
  apply FILE       Create or update a brand from a YAML file (brand, domains, competitors, topics, prompts,
                   platforms, schedule, samples); prints the plan; --dry-run stops there
  export brand S   Print brand S as that YAML file (--org ORG when several organizations have an S)
  brands           List the brands with their organization and number of active prompts
  mail test        Queue a test message that the running server sends through SMTP_URL: mail test --to ADDRESS
  mail list        The newest queued and sent messages and where each stands: mail list [--to ADDRESS]
  logs import      Import web server logs (nginx/Apache combined or JSON lines, gzip too) for a brand's
                   AI-crawler analytics: logs import --brand SLUG FILE…; importing a file again adds nothing
  run BRAND        Start a tracking run for a brand (by slug; the server runs it); --wait follows it to the
                   end, with a progress bar on a terminal; exit 1 when it failed
  demo             Eight weeks of sample data and a tracking run on a temporary directory, against
                   sample answers written for the demo (not real engines): demo [--keep] [--port N]
                   (--keep leaves the server running with its data for the dashboard)
  user add         Create a user: user add --email E --password P [--org NAME] [--role owner|admin|member|viewer]
  user list        List users with their organizations and roles
  user remove      Remove a user: user remove --email E (not an organization's last owner)
  user recovery-link  A password recovery link and code for a user, to pass on by hand (no mail needed)
                   (an existing organization is joined, default role member; a new one is owned)
  ask              Ask one AI platform one prompt and print the Answer as JSON:
                   ask --platform P [--model M] [--region US] [--language en] "prompt"
  rollups rebuild  Recompute every rollup table from raw rows (they are kept current on every write;
                   this is for repair, or after restoring raw rows by other means)
  vacuum           Apply RETENTION_DAYS_RAW_ANSWERS, compress answers stored as plain text, repack
                   answers with their brand's dictionaries (as the server does hourly) and give
                   freed space back to the file system (--full rewrites the file: server stopped; it
                   also stores large rollup tables WITHOUT ROWID, which start-up leaves as they are)
  backup FILE      A consistent copy of the SQLite database to FILE (while the server runs), with
                   the secrets beside it (FILE.secrets.json); never over an existing file. On
                   Postgres: pg_dump
  models           List the model catalogue: defaults, retired models and their replacements (--json)
  doctor           Check each configured AI platform's key and model with the provider (exit 1 if one fails)
  --help, -h       Show this help
  --version, -v    Show the version

Configuration comes from the environment and from ./.env (variables already set win), the same
whether run from source (npm start) or as the binary; see .env.example.`;

type Command = (args: string[], env: Env) => Promise<number>;

const SERVE_FLAGS: Record<string, string> = { "--port": "PORT", "--host": "HOST", "--data-dir": "DATA_DIR" };

/** serve's flags (--port, --host, --data-dir; `--flag value` or `--flag=value`) over the environment. */
function withServeFlags(args: string[], env: Env): Env {
  const out = { ...env };
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] = args[i]!.split(/=(.*)/s, 2) as [string, string | undefined];
    const variable = SERVE_FLAGS[flag];
    if (!variable) throw new StartupError(`unknown option "${args[i]}" for serve (options: ${Object.keys(SERVE_FLAGS).join(", ")})`);
    const value = inline ?? args[++i];
    if (value === undefined || value === "") throw new StartupError(`${flag} needs a value`);
    out[variable] = value;
  }
  return out;
}

/** Where a browser reaches the app: PUBLIC_URL when set, else the address the server listens on. */
const dashboardUrl = (config: { env: Env; publicUrl: string }, listening: string) => (config.env.PUBLIC_URL?.trim() ? config.publicUrl : listening).replace(/\/$/, "");

/**
 * A command that failed: one line on stderr and its exit code — 2 for configuration (a variable,
 * DATA_DIR, the port), 1 for anything else. No stack: it would show the operator bundled source,
 * not the cause; LOG_LEVEL=debug adds it for an unexpected failure.
 */
function reportFailure(error: unknown, env: Env): number {
  if (error instanceof ConfigError) {
    process.stderr.write(`answerwatch: invalid configuration: ${error.message}\n`);
    return 2;
  }
  if (error instanceof StartupError) {
    process.stderr.write(`answerwatch: ${error.message}\n`);
    return error.exitCode;
  }
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  process.stderr.write(`answerwatch: failed: ${detail.replace(/\s*\n\s*/g, " ")}\n`);
  if (env.LOG_LEVEL?.trim().toLowerCase() === "debug" && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
  return 1;
}

/**
 * A command on the deployment's stores: DATABASE_URL's PostgreSQL (a small pool) or DATA_DIR's
 * SQLite file beside a running server; with the secrets that backend keeps.
 */
async function withStores(env: Env, run: (stores: Stores, config: Config, backend: Backend, secrets: () => Promise<Secrets>) => Promise<number>): Promise<number> {
  return withBackend(env, async (backend, config, secrets) => {
    const { storesFor } = await import("./stores");
    return run(storesFor(backend), config, backend, secrets);
  });
}

/** The database alone (withStores without the stores' modules), with the secrets that backend keeps. */
async function withBackend(env: Env, run: (backend: Backend, config: Config, secrets: () => Promise<Secrets>) => Promise<number>): Promise<number> {
  const config = loadConfig(env);
  if (config.database.url) {
    const pg = await openPostgresDatabase(config.database.url, { poolSize: 2 });
    try {
      const secrets = async () => (await import("./secrets.pg")).createPgSecretStore(pg.sql, config).ensure();
      return await run({ kind: "postgres", pg, url: config.database.url }, config, secrets);
    } finally {
      await pg.close();
    }
  }
  prepareDataDir(config.dataDir);
  const dbh = openDataDirDatabase(config.dataDir, CLI_DATABASE);
  try {
    return await run({ kind: "sqlite", dbh, dbPath: dbh.sqlite.filename }, config, () => ensureSecrets(config));
  } finally {
    dbh.close();
  }
}

const commands: Record<string, Command> = {
  // Commands other than serve are loaded when used, so the server starts without their modules
  // (the demo alone brings supabase-js, the CLIs node:util).
  ask: async (args, env) => (await import("./engines/cli")).runAskCommand(args, env),
  models: async (args, env) => (await import("./engines/cli")).runModelsCommand(args, env),
  doctor: async (args, env) => (await import("./engines/cli")).runDoctorCommand(args, env),
  demo: async (args, env) => {
    const [{ runDemoCommand }, { startServer }, { createLogger }, { createSqliteDemoHistoryStore }] = await Promise.all([import("./demo/run"), import("./server"), import("./http/log"), import("./demo/store.sqlite")]);
    // The demo's server: quiet, no scheduler (the demo runs its own past and today's run).
    return runDemoCommand(args, env, async (config) => {
      const server = await startServer(config, createLogger("silent"), { scheduler: false });
      return { url: server.url, secrets: server.secrets, history: createSqliteDemoHistoryStore(server.dbh.sqlite), stop: () => server.stop() };
    });
  },
  async serve(args, env) {
    const config = loadConfig(withServeFlags(args, env));
    // Signals are taken from the first moment, so a stop during start-up is graceful too.
    let server: Awaited<ReturnType<typeof startServer>> | undefined;
    let stopRequested: string | undefined;
    const shutdown = async (signal: string) => {
      stopRequested = signal;
      if (!server) return;
      server.logger.info("shutting down", { signal });
      await server.stop();
      process.exit(0);
    };
    process.once("SIGTERM", () => void shutdown("SIGTERM"));
    process.once("SIGINT", () => void shutdown("SIGINT"));
    // A runtime that cannot start leaves a process that cannot serve: exit, so a supervisor
    // restarts it and says so, instead of a healthy-looking server answering errors.
    server = await startServer(config, undefined, { lazy: true, onLoadFailure: () => process.exit(1) });
    // Bun.write rather than process.stdout: the first use of process.stdout sets up Node's stream
    // machinery, several milliseconds that would delay the first answers.
    await Bun.write(
      Bun.stdout,
      [
        `answerwatch ${VERSION} listening on ${server.url}`,
        `  dashboard:        ${dashboardUrl(config, server.url)}/  — open it and sign up (the first account gets its own organization)`,
        `  public URL:       ${config.publicUrl}`,
        `  data directory:   ${config.dataDir}`,
        `  anon key:         ${server.secrets.anonKey}`,
        `  service_role key: ${server.secrets.serviceRoleKey}`,
        ...setupWarnings(config).map((w) => `  warning: ${w}`),
        "",
      ].join("\n"),
    );
    if (stopRequested) await shutdown(stopRequested);
    return new Promise<number>(() => {});
  },
  async migrate(_args, env) {
    const config = loadConfig(env);
    if (config.database.url) {
      // Under the migration lock: running instances of the same version find nothing to do.
      const pg = await openPostgresDatabase(config.database.url, { poolSize: 1, migrate: false });
      try {
        process.stdout.write(`${await migratePostgresDatabase(pg)} migration(s) applied\n`);
        return 0;
      } finally {
        await pg.close();
      }
    }
    prepareDataDir(config.dataDir);
    // Not under a running server: another binary's migrations would change the schema beneath it.
    const lock = lockDataDir(config.dataDir);
    try {
      const dbh = openDataDirDatabase(config.dataDir, { ...CLI_DATABASE, migrate: false });
      let applied: number;
      try {
        applied = prepareSchema(dbh.sqlite);
      } catch (error) {
        throw describeDatabaseFailure(dbh.sqlite.filename, error) ?? error;
      } finally {
        dbh.close();
      }
      process.stdout.write(`${applied} migration(s) applied\n`);
      return 0;
    } finally {
      lock.release();
    }
  },
  async rollups(args, env) {
    if (args[0] !== "rebuild") {
      process.stderr.write(`answerwatch: usage: answerwatch rollups rebuild\n`);
      return 2;
    }
    const config = loadConfig(env);
    if (config.database.url)
      return withBackend(env, async (backend) => {
        const { sql } = (backend as Extract<Backend, { kind: "postgres" }>).pg;
        const { rebuildPgRollups } = await import("./rollups/triggers.pg");
        const { rebuildLatestPg } = await import("./results/latest.pg");
        await sql.begin(async (tx) => {
          // Writers of the raw rows wait until the rebuild commits (reads go on): a row written
          // meanwhile would be summed by its trigger into a table the rebuild then replaces.
          await tx.unsafe("LOCK TABLE prompt_results, crawler_hits, ai_traffic_logs IN SHARE ROW EXCLUSIVE MODE");
          for (const r of await rebuildPgRollups(tx, undefined, true)) process.stdout.write(`${r.table}: ${r.rows} rows (${r.ms} ms)\n`);
          process.stdout.write(`prompt_results_latest: ${await rebuildLatestPg(tx)} rows\n`);
        });
        return 0;
      });
    prepareDataDir(config.dataDir);
    const dbh = openDataDirDatabase(config.dataDir, CLI_DATABASE);
    try {
      const { rebuildRollups } = await import("./rollups/triggers.sqlite");
      const { rebuildLatest } = await import("./results/latest.sqlite");
      for (const r of rebuildRollups(dbh.sqlite)) process.stdout.write(`${r.table}: ${r.rows} rows (${r.ms} ms)\n`);
      process.stdout.write(`prompt_results_latest: ${dbh.sqlite.transaction(() => rebuildLatest(dbh.sqlite)).immediate()} rows\n`);
      return 0;
    } finally {
      dbh.close();
    }
  },
  async backup(args, env) {
    const target = args[0];
    if (!target || args.length > 1 || target.startsWith("-")) {
      process.stderr.write("answerwatch: usage: answerwatch backup FILE\n");
      return 2;
    }
    const config = loadConfig(env);
    if (config.database.url) {
      process.stderr.write("answerwatch: backup copies the SQLite file; on Postgres use pg_dump (or point-in-time recovery): see \"Several instances on Postgres\"\n");
      return 2;
    }
    const { existsSync, copyFileSync, chmodSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { SECRETS_FILE } = await import("./secrets");
    const secretsCopy = `${target}.secrets.json`;
    for (const file of [target, secretsCopy])
      if (existsSync(file)) {
        process.stderr.write(`answerwatch: ${file} exists: a backup is never written over a file\n`);
        return 2;
      }
    prepareDataDir(config.dataDir);
    const dbh = openDataDirDatabase(config.dataDir, CLI_DATABASE);
    try {
      // VACUUM INTO: a consistent copy from one read transaction, while a server writes on (a copy
      // of the file alone can miss what its -wal holds).
      dbh.sqlite.query("VACUUM INTO ?").run(target);
    } finally {
      dbh.close();
    }
    // The keys signing its tokens and API keys: without them a restored database's keys and sessions are void.
    const secrets = join(config.dataDir, SECRETS_FILE);
    if (existsSync(secrets)) {
      copyFileSync(secrets, secretsCopy);
      chmodSync(secretsCopy, 0o600);
    }
    process.stdout.write(`${target}: ${Bun.file(target).size} bytes${existsSync(secretsCopy) ? `; secrets in ${secretsCopy}` : ""}\nRestore: stop the server, put the file at DATA_DIR/answerwatch.db (and the secrets at DATA_DIR/${SECRETS_FILE}), start it.\n`);
    return 0;
  },
  async vacuum(args, env) {
    const full = args.includes("--full");
    const unknown = args.filter((a) => a !== "--full");
    if (unknown.length) {
      process.stderr.write(`answerwatch: unknown option ${unknown[0]} (answerwatch vacuum [--full])\n`);
      return 2;
    }
    const config = loadConfig(env);
    if (config.database.url) {
      // Not the SQLite file's upkeep run against an empty file beside the real database.
      process.stderr.write("answerwatch: vacuum is for the SQLite file; on Postgres every instance runs the upkeep (retention, partitions) hourly, and PostgreSQL vacuums itself (autovacuum; VACUUM FULL through psql)\n");
      return 2;
    }
    prepareDataDir(config.dataDir);
    // A full VACUUM rewrites the file: only with no server on it.
    const lock = full ? lockDataDir(config.dataDir) : undefined;
    try {
      const dbh = openDataDirDatabase(config.dataDir, CLI_DATABASE);
      try {
        const { runMaintenance } = await import("./storage/maintenance");
        const { createSqliteStorageStore } = await import("./storage/store.sqlite");
        const report = await runMaintenance(createSqliteStorageStore(dbh.sqlite), { retentionDays: config.retentionDaysRawAnswers, now: new Date() });
        process.stdout.write(`answers emptied by retention: ${report.answersDropped}\nrows compressed: ${report.rowsCompressed}\nrows packed with their brand's dictionaries: ${report.rowsPacked}\npages freed: ${report.pagesFreed}\n`);
        if (report.rowsUnreadable) process.stderr.write(`answerwatch: ${report.rowsUnreadable} answers could not be read and were left as they are\n`);
        if (report.packFailure) {
          process.stderr.write(`answerwatch: repacking answers with their brand's dictionaries failed: ${report.packFailure}\n`);
          process.exitCode = 1;
        }
        if (full) {
          const before = Bun.file(dbh.sqlite.filename).size;
          // Rollup tables still kept with rowids (too large to convert at start): their keys kept once (issue #32).
          const { dropRetiredRollups, keepKeysOnce, moveFormerRows } = await import("./rollups/triggers.sqlite");
          // Rows a running server would still move to their new layout (issue #32): all of them now, before the file is rewritten.
          let moved = 0;
          for (let step = moveFormerRows(dbh.sqlite, 50_000); !step.done; step = moveFormerRows(dbh.sqlite, 50_000)) moved += step.moved;
          process.stdout.write(`rollup keys moved to their new layout: ${moved}\n`);
          process.stdout.write(`retired rollup tables dropped: ${dropRetiredRollups(dbh.sqlite).length}\nrollup tables keyed once: ${keepKeysOnce(dbh.sqlite).length}\n`);
          // Incremental auto-vacuum from now on (a database made before it can only switch during a VACUUM).
          dbh.sqlite.run("PRAGMA auto_vacuum = INCREMENTAL");
          dbh.sqlite.run("VACUUM");
          process.stdout.write(`file: ${before} -> ${Bun.file(dbh.sqlite.filename).size} bytes\n`);
        }
      } finally {
        dbh.close();
      }
      return 0;
    } finally {
      lock?.release();
    }
  },
  // user add and keys take no lock: adding a user while the server runs is how it is meant to be
  // used, and SQLite keeps the two processes' writes apart.
  user: (args, env) =>
    withStores(env, async (stores, config, _backend, secrets) => (await import("./platform/auth/cli")).runUserCommand(args, { config, secrets: await secrets(), store: stores.auth })),
  apply: (args, env) => withStores(env, async (stores, config) => (await import("./setup/cli")).runApplyCommand(args, { store: stores.setup, platforms: Object.keys(config.engines.platforms) })),
  export: (args, env) => withStores(env, async (stores) => (await import("./setup/cli")).runExportCommand(args, { store: stores.setup })),
  // The crawler store alone: every store's modules took the importer ~11 MB more resident, of the
  // 100 MB a 1 GB import stays under (tests/crawlers/large-file.test.ts).
  logs: (args, env) =>
    withBackend(env, async (backend, config, secrets) => {
      const [{ runLogsCommand }, { crawlerIngestFor }] = await Promise.all([import("./crawlers/cli"), import("./crawlers/setup")]);
      // On SQLite a bulk import keeps its temporary b-trees in memory (the store's bulkImport).
      const store = backend.kind === "sqlite" ? (await import("./crawlers/store.sqlite")).createSqliteCrawlerStore(backend.dbh.sqlite, { bulkImport: true }) : (await import("./crawlers/store.pg")).createPgCrawlerStore(backend.pg.sql);
      // Postgres takes two batches at once (cli.ts), on withBackend's two connections.
      const writers = backend.kind === "sqlite" ? 1 : 2;
      return runLogsCommand(args, { store, writers, ingest: crawlerIngestFor({ store, jwtSecret: (await secrets()).jwtSecret, verifyRdns: config.verifyRdns, retentionMonths: config.logRetentionMonths, maxPaths: config.crawlerMaxPaths }) });
    }),
  run: (args, env) =>
    withStores(env, async (stores, config) => {
      const { runRunCommand } = await import("./tracking/cli");
      // With several instances on Postgres, "is a server running" is "has one renewed its heartbeat lately".
      const serverRunning = config.database.url ? async () => ((await stores.instances?.live(GONE_AFTER_MS))?.length ?? 0) > 0 : () => dataDirHeld(config.dataDir);
      return runRunCommand(args, { store: stores.queue(), tracking: stores.tracking, engines: config.engines, dataDir: config.dataDir, serverRunning });
    }),
  brands: (_args, env) => withStores(env, async (stores) => (await import("./setup/cli")).runBrandsCommand({ store: stores.setup })),
  mail: (args, env) => withStores(env, async (stores, config) => (await import("./mail/cli")).runMailCommand(args, { store: stores.mail, config })),
  async keys(_args, env) {
    const print = ({ anonKey, serviceRoleKey }: Secrets) => void process.stdout.write(`ANON_KEY=${anonKey}\nSERVICE_ROLE_KEY=${serviceRoleKey}\n`);
    const config = loadConfig(env);
    // On SQLite the keys are in DATA_DIR's secrets.json: no need to open the database.
    if (config.database.url) return withStores(env, async (_stores, _config, _backend, secrets) => (print(await secrets()), 0));
    prepareDataDir(config.dataDir);
    print(await ensureSecrets(config));
    return 0;
  },
};

async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === "--help" || first === "-h" || first === "help") {
    process.stdout.write(HELP + "\n");
    return 0;
  }
  if (first === "--version" || first === "-v") {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const name = first === undefined || first.startsWith("-") ? "serve" : first;
  const command = commands[name];
  if (!command) {
    process.stderr.write(`answerwatch: unknown command "${name}" (see answerwatch --help)\n`);
    return 2;
  }
  return command(first === undefined || first.startsWith("-") ? argv : rest, Bun.env);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => process.exit(reportFailure(error, Bun.env)),
);

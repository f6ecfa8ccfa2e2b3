// A throwaway PostgreSQL for the tests (issue #29): TEST_DATABASE_URL when set, else a cluster made
// from the machine's PostgreSQL binaries (initdb + pg_ctl into a temporary folder, listening on a
// free port of 127.0.0.1 only; as root through the `postgres` user, which initdb requires). One
// cluster per test process, started on first use and stopped when the process exits; each caller
// gets a database of its own. Durability is switched off: nothing here outlives the run.
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";

export interface TestPostgres {
  /** The server's URL (database `postgres`). */
  url: string;
  /** A new, empty database; its URL. */
  createDatabase(prefix?: string): Promise<string>;
}

const BIN_DIRS = ["/usr/lib/postgresql/15/bin", ...safeList("/usr/lib/postgresql").map((v) => `/usr/lib/postgresql/${v}/bin`)];

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir).sort().reverse();
  } catch {
    return [];
  }
}

/** The folder holding initdb and pg_ctl, or null when PostgreSQL is not installed. */
export function postgresBinaries(): string | null {
  return BIN_DIRS.find((d) => existsSync(join(d, "initdb")) && existsSync(join(d, "pg_ctl"))) ?? null;
}

function freePort(): number {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = server.port!;
  server.stop(true);
  return port;
}

function run(args: string[], asPostgres: boolean): void {
  const [cmd, rest] = asPostgres ? ["runuser", ["-u", "postgres", "--", ...args]] : [args[0]!, args.slice(1)];
  const r = spawnSync(cmd, rest, { encoding: "utf8", timeout: 60_000 });
  if (r.status !== 0) throw new Error(`${args.join(" ")} failed (${r.status}): ${r.stderr || r.stdout}`);
}

let started: Promise<TestPostgres | null> | undefined;

/**
 * The test PostgreSQL. Without TEST_DATABASE_URL and without the binaries it fails, so a machine
 * missing PostgreSQL cannot pass the Postgres half of the suite by skipping it — unless
 * AW_SKIP_POSTGRES=1 says so (then null: the Postgres cases are skipped, visibly).
 */
export function testPostgres(): Promise<TestPostgres | null> {
  started ??= start();
  return started;
}

async function start(): Promise<TestPostgres | null> {
  const given = Bun.env.TEST_DATABASE_URL;
  if (given) return withDatabases(given);
  const bin = postgresBinaries();
  if (!bin) {
    if (Bun.env.AW_SKIP_POSTGRES === "1") return null;
    throw new Error("PostgreSQL is not installed (scripts/install-system-deps.sh installs it); set TEST_DATABASE_URL, or AW_SKIP_POSTGRES=1 to skip the Postgres tests");
  }
  const asPostgres = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), "aw-pg-"));
  // initdb refuses to run as root; the postgres user must own (and reach) the folder.
  chmodSync(dir, 0o777);
  const data = join(dir, "data");
  const port = freePort();
  run([join(bin, "initdb"), "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync", "--no-instructions"], asPostgres);
  const options = [`-p ${port}`, "-c listen_addresses=127.0.0.1", `-k ${dir}`, "-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off", "-c max_connections=200"].join(" ");
  run([join(bin, "pg_ctl"), "-D", data, "-o", options, "-l", join(dir, "log"), "-w", "-t", "60", "start"], asPostgres);
  // A watchdog outlives this process: when it ends in any way (bun test's exit, a crash, kill -9)
  // the cluster is stopped and its folder removed.
  const stop = `${asPostgres ? "runuser -u postgres -- " : ""}${join(bin, "pg_ctl")} -D ${data} -m immediate stop`;
  Bun.spawn(["bash", "-c", `while kill -0 ${process.pid} 2>/dev/null; do sleep 0.5; done; ${stop} >/dev/null 2>&1; rm -rf ${dir}`], { stdio: ["ignore", "ignore", "ignore"] }).unref();
  return withDatabases(`postgres://postgres@127.0.0.1:${port}/postgres`);
}

let counter = 0;

function withDatabases(url: string): TestPostgres {
  return {
    url,
    async createDatabase(prefix = "t") {
      const name = `${prefix}_${process.pid}_${++counter}_${Math.random().toString(36).slice(2, 8)}`.toLowerCase().replace(/[^a-z0-9_]/g, "_");
      const admin = new SQL(url, { max: 1 });
      try {
        await admin.unsafe(`CREATE DATABASE "${name}"`);
      } finally {
        await admin.close();
      }
      const u = new URL(url);
      u.pathname = `/${name}`;
      return u.toString();
    },
  };
}

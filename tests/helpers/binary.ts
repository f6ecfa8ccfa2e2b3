// Builds dist-like binaries for e2e tests (once per test process) and starts them in empty directories.
import { SQL } from "bun";
import { copyFileSync, readFileSync } from "node:fs";
import { processStart } from "../../src/common/allocator";
import { join } from "node:path";
import { backendEnv, ROOT, tempDir } from "./app";

let built: string | undefined;

// A test that fails half-way must not leave a server running (and spinning) after the test process.
const started = new Set<Bun.Subprocess>();
process.on("exit", () => {
  for (const proc of started) if (proc.exitCode === null) proc.kill("SIGKILL");
});

export function buildBinary(): string {
  if (built) return built;
  const out = join(tempDir("aw-build-"), "answerwatch");
  const proc = Bun.spawnSync([process.execPath, `${ROOT}scripts/build.ts`, out], { stdout: "pipe", stderr: "pipe" });
  if (proc.exitCode !== 0) throw new Error(`build failed: ${proc.stderr.toString()}`);
  return (built = out);
}

export interface StartedBinary {
  proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
  url: string;
  dir: string;
  output: () => string;
  /** The Postgres database it runs on (the Postgres pass); undefined on SQLite. */
  databaseUrl?: string;
}

/** The environment a running process was started with (Linux /proc/PID/environ), parsed as the product parses its own. */
export const environOf = (pid: number): Record<string, string> => processStart((path) => readFileSync(path.replace("/proc/self/", `/proc/${pid}/`)))!.env;

/** Copies the binary alone into an empty directory and starts it there on a free port. */
export async function startBinary(env: Record<string, string> = {}, dir = tempDir("aw-bin-")): Promise<StartedBinary> {
  const exe = join(dir, "answerwatch");
  copyFileSync(buildBinary(), exe);
  // In the Postgres pass (a suite marked for both backends), the binary gets a database of its own.
  const databaseUrl = env.DATABASE_URL ?? (await backendEnv()).DATABASE_URL;
  const proc = Bun.spawn([exe, "serve"], {
    cwd: dir,
    env: { PATH: "/usr/bin:/bin", PORT: "0", HOST: "127.0.0.1", DATA_DIR: join(dir, "data"), LOG_LEVEL: "warn", ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}), ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  started.add(proc);
  return { proc, dir, databaseUrl, ...(await untilListening(proc, 20_000)) };
}

/** The secrets a started binary generated: DATA_DIR/secrets.json, or on Postgres the shared table (src/secrets.pg.ts). */
export async function secretsOf(bin: StartedBinary): Promise<Record<string, string>> {
  if (!bin.databaseUrl) return JSON.parse(await Bun.file(join(bin.dir, "data", "secrets.json")).text());
  const sql = new SQL(bin.databaseUrl, { max: 1 });
  try {
    const [row] = await sql`SELECT stored FROM answerwatch_secrets WHERE id = 1`;
    return row.stored as Record<string, string>;
  } finally {
    await sql.close();
  }
}

/**
 * Reads a server process' stdout until its "listening on URL" line; keeps draining it afterwards so
 * the child never blocks on a full pipe. Its URL and everything it printed so far.
 */
export async function untilListening(proc: Bun.Subprocess<"ignore", "pipe", "pipe">, timeoutMs: number): Promise<{ url: string; output: () => string }> {
  let text = "";
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  const deadline = Date.now() + timeoutMs;
  while (!/listening on (\S+)/.test(text)) {
    if (Date.now() > deadline) throw new Error(`the server did not start: ${text}`);
    const { value, done } = await reader.read();
    if (done) throw new Error(`the server exited: ${text} ${await new Response(proc.stderr).text()}`);
    text += decoder.decode(value);
  }
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
  })();
  return { url: text.match(/listening on (\S+)/)![1]!, output: () => text };
}

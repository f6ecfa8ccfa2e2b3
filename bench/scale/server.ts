// The real server (src/main.ts serve) as its own process on 127.0.0.1 for bench/scale, and signing in.
import type { Subprocess } from "bun";
import { join } from "node:path";
import { freePort, ROOT } from "../lib";

export interface RunningServer {
  base: string;
  pid: number;
  /** Milliseconds from spawn to the first answer of /healthz. */
  startMs: number;
  stop(): Promise<void>;
}

/** The server's settings for the bench: one tracking worker, no scheduled tracking, no sign-in limit in the way. */
export function serverEnv(dataDir: string, port: number): Record<string, string> {
  return {
    DATA_DIR: dataDir,
    HOST: "127.0.0.1",
    PORT: String(port),
    LOG_LEVEL: "silent",
    WORKERS: "1",
    // Measured without the response cache unless asked: a repeated GET would otherwise be served from
    // memory and say nothing about the database (bench/rest.ts measures the cache).
    REST_CACHE_MB: Bun.env.REST_CACHE_MB ?? "0",
    // The brands' platforms are "daily" and would be due: nothing is tracked while the bench runs.
    CRON_SCHEDULE: "0 0 1 1 *",
    AUTH_RATE_LIMIT_PER_MINUTE: "1000",
  };
}

/** `env` is added to serverEnv's (bench/postgres.ts: DATABASE_URL, the upstream's settings). */
export async function startServer(dataDir: string, timeoutMs = 15 * 60_000, env: Record<string, string> = {}): Promise<RunningServer> {
  const port = freePort();
  const started = performance.now();
  const proc: Subprocess = Bun.spawn([process.execPath, ...(Bun.env.BENCH_CPU_PROF_DIR ? ["--cpu-prof-md", `--cpu-prof-dir=${Bun.env.BENCH_CPU_PROF_DIR}`] : []), join(ROOT, "src/main.ts"), "serve"], {
    env: { ...Bun.env, ...serverEnv(dataDir, port), ...env },
    stdout: "ignore",
    stderr: "inherit",
  });
  const base = `http://127.0.0.1:${port}`;
  let exited: number | null = null;
  void proc.exited.then((code) => (exited = code));
  for (;;) {
    if (exited !== null) throw new Error(`the server on ${dataDir} exited with ${exited} before answering /healthz`);
    try {
      if ((await fetch(`${base}/healthz`)).status < 500) break;
    } catch {
      // not listening yet
    }
    if (performance.now() - started > timeoutMs) {
      proc.kill("SIGKILL");
      throw new Error(`${base}/healthz did not come up in ${timeoutMs / 1000} s`);
    }
    await Bun.sleep(25);
  }
  const startMs = performance.now() - started;
  return {
    base,
    pid: proc.pid,
    startMs,
    async stop() {
      proc.kill("SIGTERM");
      let timer: ReturnType<typeof setTimeout> | undefined;
      const code = await Promise.race([proc.exited, new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), 60_000)))]);
      clearTimeout(timer);
      if (code === null) {
        proc.kill("SIGKILL");
        await proc.exited;
      }
    },
  };
}

export async function json(res: Response): Promise<any> {
  if (!res.ok) throw new Error(`${res.url}: ${res.status} ${await res.text()}`);
  return res.json();
}

export interface Session {
  accessToken: string;
  refreshToken: string;
  /** performance.now() when the access token stops being valid. */
  expiresAt: number;
}

function sessionOf(body: any): Session {
  return { accessToken: body.access_token, refreshToken: body.refresh_token, expiresAt: performance.now() + Number(body.expires_in ?? 3600) * 1000 };
}

export async function signUp(base: string, anonKey: string, email: string, password: string, organizationName: string): Promise<{ session: Session; userId: string }> {
  const body = await json(
    await fetch(`${base}/auth/v1/signup`, {
      method: "POST",
      headers: { apikey: anonKey, "content-type": "application/json" },
      body: JSON.stringify({ email, password, data: { organization_name: organizationName } }),
    }),
  );
  return { session: sessionOf(body), userId: body.user.id };
}

export async function signIn(base: string, anonKey: string, email: string, password: string): Promise<Session> {
  return sessionOf(
    await json(
      await fetch(`${base}/auth/v1/token?grant_type=password`, {
        method: "POST",
        headers: { apikey: anonKey, "content-type": "application/json" },
        body: JSON.stringify({ email, password }),
      }),
    ),
  );
}

export async function refresh(base: string, anonKey: string, session: Session): Promise<Session> {
  return sessionOf(
    await json(
      await fetch(`${base}/auth/v1/token?grant_type=refresh_token`, {
        method: "POST",
        headers: { apikey: anonKey, "content-type": "application/json" },
        body: JSON.stringify({ refresh_token: session.refreshToken }),
      }),
    ),
  );
}

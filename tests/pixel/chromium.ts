// Headless Chromium (Debian's package, see scripts/install-system-deps.sh) driven over the DevTools
// protocol with Bun's own WebSocket: enough CDP for a page, its network events and a script.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface CdpEvent {
  method: string;
  params: Record<string, any>;
  sessionId?: string;
}

export interface Browser {
  /** Sends a command to the page's session and resolves with its result. */
  page(method: string, params?: Record<string, unknown>): Promise<any>;
  events: CdpEvent[];
  close(): Promise<void>;
}

const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
  "--remote-debugging-port=0",
];

export async function launchChromium(options: { userAgent?: string } = {}): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), "aw-chromium-"));
  const args = [...FLAGS, `--user-data-dir=${profile}`, ...(options.userAgent ? [`--user-agent=${options.userAgent}`] : []), "about:blank"];
  const proc = Bun.spawn(["chromium", ...args], { stdout: "ignore", stderr: "pipe" });

  // Chromium prints the browser's endpoint on stderr once it listens.
  const reader = proc.stderr.getReader();
  const decoder = new TextDecoder();
  let stderr = "";
  let endpoint: string | undefined;
  while (!endpoint) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`chromium exited before listening: ${stderr}`);
    stderr += decoder.decode(value);
    endpoint = stderr.match(/DevTools listening on (ws:\/\/\S+)/)?.[1];
  }
  void (async () => {
    while (!(await reader.read()).done);
  })();

  const socket = new WebSocket(endpoint);
  await new Promise<void>((resolve, reject) => {
    socket.onopen = () => resolve();
    socket.onerror = () => reject(new Error(`cannot connect to ${endpoint}`));
  });
  let nextId = 1;
  const waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  const events: CdpEvent[] = [];
  socket.onmessage = (message) => {
    const data = JSON.parse(String(message.data));
    if (data.id === undefined) return void events.push(data);
    const w = waiting.get(data.id);
    waiting.delete(data.id);
    if (data.error) w?.reject(new Error(`${data.error.message} (${data.error.code})`));
    else w?.resolve(data.result);
  };
  const send = (method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<any> => {
    const id = nextId++;
    const { promise, resolve, reject } = Promise.withResolvers<unknown>();
    waiting.set(id, { resolve, reject });
    socket.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    return promise;
  };

  const { targetId } = await send("Target.createTarget", { url: "about:blank" });
  const { sessionId } = await send("Target.attachToTarget", { targetId, flatten: true });
  const page = (method: string, params?: Record<string, unknown>) => send(method, params, sessionId);
  await page("Page.enable");
  await page("Network.enable");

  return {
    page,
    events,
    async close() {
      socket.close();
      proc.kill();
      await proc.exited;
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Waits until `check` returns a value (bounded; a wait, not a timing assertion). */
export async function until<T>(what: string, check: () => T | undefined | null | false, limitMs = 20_000): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await Bun.sleep(25);
  }
}

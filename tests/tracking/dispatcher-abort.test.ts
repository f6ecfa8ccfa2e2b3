// A job stopped (server shutdown) or cancelled while the dispatcher reads its pending units must
// not take them: it once did, and the loop starting its lanes never ended — the process spun at
// full CPU with its timers dead (seen as a Postgres server hanging in stop, issue #29). The
// dispatcher runs in a child process (tests/tracking/fixtures/abort-while-starting.ts), which a
// spinning thread cannot stop from answering late: the test kills it at a deadline and fails.
import { expect, test } from "bun:test";

const CHILD = new URL("./fixtures/abort-while-starting.ts", import.meta.url).pathname;

async function runChild(how: "stop" | "cancel"): Promise<{ how: string; calls: number } | "hung"> {
  const child = Bun.spawn([process.execPath, CHILD, how], { stdout: "pipe", stderr: "inherit" });
  const deadline = setTimeout(() => child.kill(9), 10_000);
  const out = await new Response(child.stdout).text();
  clearTimeout(deadline);
  const code = await child.exited;
  return code === 0 ? JSON.parse(out.trim()) : "hung";
}

test.each([
  ["stopped", "stop"],
  ["cancelled", "cancel"],
] as const)("a job %s while its units are read takes none of them, and the process goes on", async (_, how) => {
  expect(await runChild(how)).toEqual({ how, calls: 0 });
}, 30_000);

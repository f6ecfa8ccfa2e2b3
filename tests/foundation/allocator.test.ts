// The server's allocator settings (src/common/allocator.ts): which commands start again with them,
// and with what arguments (from source and as a compiled binary); a server run from source gets them.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { allocatorRelaunch, SERVER_ALLOCATOR_ENV, startsServer } from "../../src/common/allocator";
import { ROOT, tempDir } from "../helpers/app";

test("serve, no command and serve's flags start a server; other commands and --help/--version do not", () => {
  for (const args of [[], ["serve"], ["serve", "--port", "3000"], ["--port", "3000"], ["--data-dir=/tmp/x"]]) expect(startsServer(args)).toBe(true);
  for (const args of [["keys"], ["migrate"], ["logs", "import"], ["--help"], ["-h"], ["--version"], ["-v"], ["demo"]]) expect(startsServer(args)).toBe(false);
});

test("the relaunch runs the same program with the same arguments, the script only when run from source, and the settings added", () => {
  const base = { env: { PATH: "/usr/bin", PORT: "1" }, execPath: "/opt/bun", execArgv: ["--smol"], script: "/repo/src/main.ts" };
  expect(allocatorRelaunch({ ...base, args: ["serve", "--port", "9"], compiled: false })).toEqual({
    file: "/opt/bun",
    args: ["/opt/bun", "--smol", "/repo/src/main.ts", "serve", "--port", "9"],
    env: { PATH: "/usr/bin", PORT: "1", ...SERVER_ALLOCATOR_ENV },
  });
  // A compiled binary's argv[1] is its embedded entry, not an argument to pass again.
  expect(allocatorRelaunch({ ...base, execPath: "/usr/local/bin/answerwatch", execArgv: [], args: ["serve"], compiled: true })?.args).toEqual(["/usr/local/bin/answerwatch", "serve"]);
  expect(allocatorRelaunch({ ...base, args: ["keys"], compiled: false })).toBeNull();
  // Any of the settings already named: the operator's choice, nothing added.
  for (const name of Object.keys(SERVER_ALLOCATOR_ENV)) expect(allocatorRelaunch({ ...base, env: { ...base.env, [name]: "1" }, args: ["serve"], compiled: false })).toBeNull();
});

test("a server run from source (bun src/main.ts serve) runs with the settings, in the process that was started", async () => {
  const proc = Bun.spawn([process.execPath, `${ROOT}src/main.ts`, "serve"], {
    env: { PATH: Bun.env.PATH!, DATA_DIR: tempDir(), PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "warn" },
    stdout: "pipe",
    stderr: "inherit",
  });
  try {
    let out = "";
    const reader = proc.stdout.getReader();
    for (let i = 0; i < 200 && !/listening on (\S+)/.test(out); i++) {
      const { value, done } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
    }
    const url = out.match(/listening on (\S+)/)?.[1];
    expect(url).toBeDefined();
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const env = Object.fromEntries(readFileSync(`/proc/${proc.pid}/environ`, "utf8").split("\0").filter(Boolean).map((kv) => kv.split(/=(.*)/s, 2) as [string, string]));
    for (const [name, value] of Object.entries(SERVER_ALLOCATOR_ENV)) expect(env[name]).toBe(value);
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
  }
});

// The server's allocator settings (src/common/allocator.ts): which commands start again with them,
// and with what arguments (from source and as a compiled binary); a server run from source gets them.
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { allocatorRelaunch, processStart, SERVER_ALLOCATOR_ENV, wantsServerAllocator } from "../../src/common/allocator";
import { ROOT, tempDir } from "../helpers/app";
import { environOf, untilListening } from "../helpers/binary";

test("serve, no command, serve's flags and a log import get the settings; other commands and --help/--version do not", () => {
  for (const args of [[], ["serve"], ["serve", "--port", "3000"], ["--port", "3000"], ["--data-dir=/tmp/x"], ["logs", "import", "--brand", "b", "a.log"]]) expect(wantsServerAllocator(args)).toBe(true);
  for (const args of [["keys"], ["migrate"], ["logs"], ["logs", "--help"], ["--help"], ["-h"], ["--version"], ["-v"], ["demo"]]) expect(wantsServerAllocator(args)).toBe(false);
});

test("the relaunch runs the program as it was started — the same argv and environment, the settings added — or not at all", () => {
  const start = { argv: ["./answerwatch", "serve", "--port", "9"], env: { PATH: "/usr/bin", BUN_OPTIONS: "--smol" } };
  const base = { start, execPath: "/srv/answerwatch", execArgv: ["--smol"] };
  // argv exactly as started: a compiled binary's (no script; BUN_OPTIONS' flags are Bun's to apply again), or a source run's.
  expect(allocatorRelaunch({ ...base, args: ["serve", "--port", "9"] })).toEqual({ file: "/srv/answerwatch", args: ["./answerwatch", "serve", "--port", "9"], env: { PATH: "/usr/bin", BUN_OPTIONS: "--smol", ...SERVER_ALLOCATOR_ENV } });
  const fromSource = { argv: ["bun", "--smol", "src/main.ts", "serve"], env: { PATH: "/usr/bin" } };
  expect(allocatorRelaunch({ ...base, start: fromSource, args: ["serve"] })?.args).toEqual(["bun", "--smol", "src/main.ts", "serve"]);
  expect(allocatorRelaunch({ ...base, args: ["keys"] })).toBeNull();
  // A debugger would have to attach twice, by flag or through the environment.
  expect(allocatorRelaunch({ ...base, execArgv: ["--inspect-wait=0"], args: ["serve"] })).toBeNull();
  expect(allocatorRelaunch({ ...base, start: { ...start, env: { ...start.env, BUN_INSPECT: "ws://127.0.0.1:9229/x?wait=1" } }, args: ["serve"] })).toBeNull();
  // A log read from an inherited descriptor (bash's <(…)) would be closed by the restart; the standard streams are kept.
  expect(allocatorRelaunch({ ...base, args: ["logs", "import", "--brand", "b", "/dev/fd/63"] })).toBeNull();
  expect(allocatorRelaunch({ ...base, args: ["logs", "import", "--brand", "b", "/proc/self/fd/3"] })).toBeNull();
  expect(allocatorRelaunch({ ...base, args: ["logs", "import", "--brand", "b", "/dev/fd/0"] })).not.toBeNull();
  // Any of mimalloc's options in the environment the process was started with: the operator's choice, nothing added.
  for (const name of [...Object.keys(SERVER_ALLOCATOR_ENV), "MIMALLOC_PURGE_DELAY"]) expect(allocatorRelaunch({ ...base, start: { ...start, env: { ...start.env, [name]: "1" } }, args: ["serve"] })).toBeNull();
});

test("the start is read from /proc/self: argv as given, and the environment as handed over (none of ./.env)", () => {
  const bytes = (text: string) => new TextEncoder().encode(text);
  const files: Record<string, Uint8Array> = { "/proc/self/cmdline": bytes("./answerwatch\0serve\0\0"), "/proc/self/environ": bytes("PATH=/usr/bin\0EQ=a=b\0EMPTY=\0PATH=/second\0NOEQUALS\0") };
  // A deliberately empty argument is kept; a name given twice counts once, first (as getenv reads it).
  expect(processStart((path) => files[path]!)).toEqual({ argv: ["./answerwatch", "serve", ""], env: { PATH: "/usr/bin", EQ: "a=b", EMPTY: "" } });
  // Bytes that are not UTF-8 could not be handed back unchanged: no start read, so no restart.
  expect(processStart((path) => (path.endsWith("environ") ? new Uint8Array([0x41, 0x3d, 0xff, 0]) : files[path]!))).toBeNull();
  expect(
    processStart(() => {
      throw new Error("ENOENT");
    }),
  ).toBeNull();
  // This process's own start: its argv is the test runner's, its environment lacks nothing it was given.
  const own = processStart()!;
  expect(own.argv[0] ?? "").toContain("bun");
  expect(own.env.PATH).toBe(process.env.PATH!);
});

test("a server run from source (bun src/main.ts serve) runs with the settings, in the process that was started; ./.env neither sets them nor enters its environment", async () => {
  const cwd = tempDir();
  // The allocator never sees a line of ./.env (Bun reads it after the allocator started), and its secrets stay out of /proc/PID/environ.
  writeFileSync(join(cwd, ".env"), "MIMALLOC_PURGE_DELAY=5\nSMTP_URL=smtp://user:secret@127.0.0.1:1\n");
  const proc = Bun.spawn([process.execPath, `${ROOT}src/main.ts`, "serve"], {
    cwd,
    env: { PATH: Bun.env.PATH!, DATA_DIR: tempDir(), PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "warn" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  try {
    const { url } = await untilListening(proc, 20_000);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const env = environOf(proc.pid);
    for (const [name, value] of Object.entries(SERVER_ALLOCATOR_ENV)) expect(env[name]).toBe(value);
    expect(env.SMTP_URL).toBeUndefined();
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
  }
});

// Start-up failures of the compiled binary: each says its cause in one line on stderr naming the
// variable or the file, with no stack trace, and exits 2 for configuration (DATA_DIR, PORT, HOST,
// secrets.json, a DATA_DIR another server holds) or 1 for damaged data (the database).
// Tests run as root, for whom no permission bit makes a directory unwritable: "not writable" uses
// /sys (sysfs refuses to create files, root included) and "cannot be created" /proc/… (ENOENT).
import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/app";
import { buildBinary, startBinary } from "../helpers/binary";

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the binary to its end (at most 15 s) from an empty directory, on 127.0.0.1 and a free port. */
async function runToExit(env: Record<string, string>, args: string[] = ["serve"]): Promise<Exit> {
  const proc = Bun.spawn([buildBinary(), ...args], {
    cwd: tempDir("aw-fail-cwd-"),
    env: { PATH: "/usr/bin:/bin", PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "warn", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 15_000);
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** The contract of every start-up failure: this exit code, one stderr line matching each pattern, no stack. */
function expectOneLineFailure(exit: Exit, code: 1 | 2, ...patterns: (string | RegExp)[]): string {
  expect(exit.code).toBe(code);
  expect(exit.stdout).toBe("");
  expect(exit.stderr).not.toMatch(/^\s+at /m);
  const lines = exit.stderr.trimEnd().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toStartWith("answerwatch: ");
  for (const pattern of patterns) expect(lines[0]).toMatch(pattern);
  return lines[0];
}

const escaped = (text: string) => new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));

test("a DATA_DIR that is a file: exit 2, one line naming DATA_DIR", async () => {
  const file = join(tempDir(), "not-a-dir");
  writeFileSync(file, "x");
  expectOneLineFailure(await runToExit({ DATA_DIR: file }), 2, escaped(`DATA_DIR=${file}`), /not a directory/);
});

test("a DATA_DIR below a file: exit 2, one line naming DATA_DIR and ENOTDIR", async () => {
  const file = join(tempDir(), "file.txt");
  writeFileSync(file, "x");
  expectOneLineFailure(await runToExit({ DATA_DIR: join(file, "data") }), 2, escaped(`DATA_DIR=${file}/data`), /ENOTDIR/);
});

test("a DATA_DIR that cannot be written (even by root): exit 2, one line naming DATA_DIR", async () => {
  expectOneLineFailure(await runToExit({ DATA_DIR: "/sys" }), 2, /DATA_DIR=\/sys is not writable \(E[A-Z]+\)/);
});

test("a DATA_DIR that cannot be created: exit 2, one line naming DATA_DIR", async () => {
  expectOneLineFailure(await runToExit({ DATA_DIR: "/proc/answerwatch-data" }), 2, /DATA_DIR=\/proc\/answerwatch-data cannot be created \(E[A-Z]+\)/);
});

test("a busy port: exit 2, one line naming PORT and HOST", async () => {
  const taken = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  try {
    const exit = await runToExit({ DATA_DIR: join(tempDir(), "data"), PORT: String(taken.port) });
    expectOneLineFailure(exit, 2, escaped(`PORT=${taken.port} is already in use on HOST=127.0.0.1`));
  } finally {
    taken.stop(true);
  }
});

test("an address that is not this machine's: exit 2, one line naming HOST", async () => {
  // 192.0.2.0/24 is TEST-NET-1 (RFC 5737): never assigned to a machine.
  expectOneLineFailure(await runToExit({ DATA_DIR: join(tempDir(), "data"), HOST: "192.0.2.1" }), 2, /HOST=192\.0\.2\.1 is not an address of this machine/);
});

test("a host name that does not resolve: exit 2, one line naming HOST", async () => {
  // .invalid never resolves (RFC 6761).
  expectOneLineFailure(await runToExit({ DATA_DIR: join(tempDir(), "data"), HOST: "not-an-address.invalid" }), 2, /HOST=not-an-address\.invalid does not resolve/);
});

test("a database file that is not SQLite: exit 1 (damaged data), one line naming the file", async () => {
  const dataDir = join(tempDir(), "data");
  mkdirSync(dataDir);
  writeFileSync(join(dataDir, "answerwatch.db"), crypto.getRandomValues(new Uint8Array(8192)));
  const line = expectOneLineFailure(await runToExit({ DATA_DIR: dataDir }), 1, /DATA_DIR\/answerwatch\.db is not a SQLite database/);
  expect(line).toContain(join(dataDir, "answerwatch.db"));
  // migrate and user add open the same file and say the same.
  expectOneLineFailure(await runToExit({ DATA_DIR: dataDir }, ["migrate"]), 1, /DATA_DIR\/answerwatch\.db is not a SQLite database/);
  expectOneLineFailure(await runToExit({ DATA_DIR: dataDir }, ["user", "add", "--email", "a@example.com", "--password", "long-pass"]), 1, /answerwatch\.db is not a SQLite database/);
});

test("a secrets.json that is not JSON: exit 2, one line naming the file, without its contents", async () => {
  const dataDir = join(tempDir(), "data");
  mkdirSync(dataDir);
  writeFileSync(join(dataDir, "secrets.json"), '{"jwt_secret": leakedsecretfragment');
  const line = expectOneLineFailure(await runToExit({ DATA_DIR: dataDir }), 2, /DATA_DIR\/secrets\.json is not valid JSON/);
  expect(line).not.toContain("leakedsecretfragment");
  expectOneLineFailure(await runToExit({ DATA_DIR: dataDir }, ["keys"]), 2, /DATA_DIR\/secrets\.json is not valid JSON/);
});

test("a secrets.json with wrong types: exit 2, one line naming the file and the field", async () => {
  for (const [content, pattern] of [
    ['{"jwt_secret": 5}', /DATA_DIR\/secrets\.json: "jwt_secret" must be a string/],
    ['{"cron_secret": ["a"]}', /DATA_DIR\/secrets\.json: "cron_secret" must be a string/],
    ["[]", /DATA_DIR\/secrets\.json must hold a JSON object/],
  ] as const) {
    const dataDir = join(tempDir(), "data");
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, "secrets.json"), content);
    expectOneLineFailure(await runToExit({ DATA_DIR: dataDir }), 2, pattern);
  }
});

/** Kills a server a failed assertion left running, so no test leaves one behind. */
function killIfRunning(proc: Bun.Subprocess): void {
  if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
}

test("a second server on the same DATA_DIR is refused while the first runs; user add still works, migrate waits its turn", async () => {
  const first = await startBinary();
  try {
    const dataDir = join(first.dir, "data");
    expectOneLineFailure(await runToExit({ DATA_DIR: dataDir }), 2, escaped(`DATA_DIR=${dataDir} is in use by another answerwatch process (PID ${first.proc.pid})`));
    expectOneLineFailure(await runToExit({ DATA_DIR: dataDir }, ["migrate"]), 2, escaped(`DATA_DIR=${dataDir} is in use`));
    // Adding a user while the server runs is a documented use: no lock.
    const added = await runToExit({ DATA_DIR: dataDir }, ["user", "add", "--email", "second@example.com", "--password", "long-pass"]);
    expect(added.code).toBe(0);
    expect((await fetch(`${first.url}/healthz`)).status).toBe(200);

    first.proc.kill("SIGTERM");
    expect(await first.proc.exited).toBe(0);
    // A clean stop frees DATA_DIR.
    const migrated = await runToExit({ DATA_DIR: dataDir }, ["migrate"]);
    expect(migrated.code).toBe(0);
    expect(migrated.stdout).toContain("migration(s) applied");
  } finally {
    killIfRunning(first.proc);
  }
});

test("after kill -9 of a server, a new one starts on the same DATA_DIR", async () => {
  const dir = tempDir("aw-kill9-");
  const first = await startBinary({}, dir);
  first.proc.kill("SIGKILL");
  await first.proc.exited;
  const second = await startBinary({}, dir);
  try {
    expect((await fetch(`${second.url}/healthz`)).status).toBe(200);
    // And it holds DATA_DIR in turn.
    expectOneLineFailure(await runToExit({ DATA_DIR: join(dir, "data") }), 2, escaped(`PID ${second.proc.pid}`));
    second.proc.kill("SIGTERM");
    expect(await second.proc.exited).toBe(0);
  } finally {
    killIfRunning(second.proc);
  }
});

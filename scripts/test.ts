// npm test: runs every test with `bun test`, then runs the suites marked for both backends again
// against PostgreSQL (a file whose first lines say `backends: sqlite, postgres` runs with
// AW_TEST_BACKEND=postgres: its servers keep their data in a database of the throwaway cluster),
// passes the output through, and ends with the line "N passed, N failed" (both runs) that bun does
// not print itself. Keeps bun's exit code.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const args = process.argv.slice(2);

// The browser tests need Debian's chromium (and poppler's pdftoppm, for the client report's pages): install them here so the README's one test command works
// on a fresh machine (a no-op when it is already there).
const hasPostgres = () => readdirSafe("/usr/lib/postgresql").some((v) => Bun.file(`/usr/lib/postgresql/${v}/bin/initdb`).size > 0);
function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
if (!Bun.which("chromium") || !Bun.which("pdftoppm") || (!hasPostgres() && !Bun.env.TEST_DATABASE_URL)) {
  const install = Bun.spawnSync(["bash", new URL("./install-system-deps.sh", import.meta.url).pathname], { stdout: "inherit", stderr: "inherit" });
  if (install.exitCode !== 0) {
    process.stdout.write("\ncould not install chromium and postgresql (scripts/install-system-deps.sh); the browser and Postgres tests need them\n0 passed, 1 failed\n");
    process.exit(1);
  }
}
// The web app's files as the server serves them, from the sources being tested.
const web = Bun.spawnSync([process.execPath, new URL("./build-web.ts", import.meta.url).pathname], { stdout: "inherit", stderr: "inherit" });
if (web.exitCode !== 0) {
  process.stdout.write("\nthe web app did not build (scripts/build-web.ts)\n0 passed, 1 failed\n");
  process.exit(1);
}
/** One `bun test` run with its output passed through; its counts and exit code. */
async function run(files: string[], env: Record<string, string>): Promise<{ passed: number; failed: number; exitCode: number }> {
  const proc = Bun.spawn([process.execPath, "test", "--timeout", "60000", ...files], {
    stdout: "pipe",
    stderr: "pipe",
    env: { ...Bun.env, FORCE_COLOR: "0", NO_COLOR: "1", ...env },
  });
  let summary = "";
  async function pump(stream: ReadableStream<Uint8Array>, sink: NodeJS.WriteStream) {
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      const text = decoder.decode(chunk, { stream: true });
      summary = (summary + text).slice(-4000);
      sink.write(text);
    }
  }
  await Promise.all([pump(proc.stdout, process.stdout), pump(proc.stderr, process.stderr)]);
  const exitCode = await proc.exited;
  const count = (word: string) => Number(summary.match(new RegExp(`^\\s*(\\d+) ${word}$`, "m"))?.[1] ?? 0);
  return { passed: count("pass"), failed: count("fail"), exitCode };
}

/** The test files that say, in their first lines, that they run on both backends. */
function matrixFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "artifacts" ? [] : matrixFiles(path);
    if (!name.endsWith(".test.ts")) return [];
    return /^\/\/ backends: sqlite, postgres$/m.test(readFileSync(path, "utf8").slice(0, 400)) ? [`./${relative(process.cwd(), path)}`] : [];
  });
}

const first = await run(args, {});
const totals = { passed: first.passed, failed: first.failed };
let exitCode = first.exitCode;
// With file arguments, only those run (once); the whole suite adds the Postgres pass.
if (!args.some((a) => !a.startsWith("-"))) {
  const files = matrixFiles(join(process.cwd(), "tests"));
  if (files.length) {
    process.stdout.write(`\nthe same ${files.length} suites on PostgreSQL (AW_TEST_BACKEND=postgres):\n`);
    const second = await run(files, { AW_TEST_BACKEND: "postgres" });
    totals.passed += second.passed;
    totals.failed += second.failed;
    if (second.exitCode !== 0) exitCode = second.exitCode;
  }
}
process.stdout.write(`\n${totals.passed} passed, ${totals.failed} failed\n`);
process.exit(exitCode !== 0 ? exitCode : totals.passed === 0 ? 1 : 0);

// npm test: runs every test with `bun test`, passes its output through, and ends with the line
// "N passed, N failed" that bun does not print itself. Keeps bun's exit code.
export {};

const args = process.argv.slice(2);

// The browser tests need Debian's chromium: install it here so the README's one test command works
// on a fresh machine (a no-op when it is already there).
if (!Bun.which("chromium")) {
  const install = Bun.spawnSync(["bash", new URL("./install-system-deps.sh", import.meta.url).pathname], { stdout: "inherit", stderr: "inherit" });
  if (install.exitCode !== 0) {
    process.stdout.write("\ncould not install chromium (scripts/install-system-deps.sh); the browser tests need it\n0 passed, 1 failed\n");
    process.exit(1);
  }
}
// The web app's files as the server serves them, from the sources being tested.
const web = Bun.spawnSync([process.execPath, new URL("./build-web.ts", import.meta.url).pathname], { stdout: "inherit", stderr: "inherit" });
if (web.exitCode !== 0) {
  process.stdout.write("\nthe web app did not build (scripts/build-web.ts)\n0 passed, 1 failed\n");
  process.exit(1);
}
const proc = Bun.spawn([process.execPath, "test", "--timeout", "60000", ...args], {
  stdout: "pipe",
  stderr: "pipe",
  env: { ...Bun.env, FORCE_COLOR: "0", NO_COLOR: "1" },
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
const passed = count("pass");
const failed = count("fail");
process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
process.exit(exitCode !== 0 ? exitCode : passed === 0 ? 1 : 0);

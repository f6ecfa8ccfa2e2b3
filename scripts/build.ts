// npm run build → dist/answerwatch: one executable with the migrations (generated module), the
// worker entries and the lazily loaded chunks embedded. No whitespace minification: Elysia's ahead-of-time compile
// misreads minified handlers (DESIGN §12).
import { existsSync } from "node:fs";

const root = new URL("..", import.meta.url).pathname;
const outfile = process.argv[2] ?? `${root}dist/answerwatch`;
// Worker threads must be extra entrypoints so the binary carries them (DESIGN §12).
const workerEntries = ["src/queue/worker.ts", "src/platform/rest/thread-worker.ts"].filter((f) => existsSync(`${root}${f}`));

// The web app first: its built files are embedded through src/web/assets.generated.ts.
const web = Bun.spawnSync([process.execPath, `${root}scripts/build-web.ts`], { cwd: root, stdio: ["ignore", "inherit", "inherit"] });
if (web.exitCode !== 0) process.exit(web.exitCode ?? 1);

const proc = Bun.spawnSync(
  [
    process.execPath,
    "build",
    "--compile",
    "--minify-syntax",
    // Precompiled bytecode roughly halves start-up (no parsing of the bundled modules).
    "--bytecode",
    // Dynamic imports become chunks of their own, read only when imported: the server's shell
    // (config, database, /healthz) starts without loading the feature runtime's code at all.
    "--format=esm",
    "--splitting",
    // ./.env is read as `bun src/main.ts` (npm start) reads it: one behaviour, documented in the README.
    "--no-compile-autoload-bunfig",
    "src/main.ts",
    ...workerEntries,
    "--outfile",
    outfile,
  ],
  { cwd: root, stdio: ["ignore", "inherit", "inherit"] },
);
process.exit(proc.exitCode ?? 1);

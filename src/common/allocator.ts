// The memory allocator's settings for a server. Bun allocates through mimalloc, which by default
// gives freed memory back to the system within 100 ms, holes inside its pages included. A server
// writing tracking results frees and reuses memory all the time: giving those holes back and
// faulting them in again cost about a third of each instance's CPU in bench/postgres.ts's
// 10,000-unit run. mimalloc reads its options once, as the process starts, so a server started
// without them starts itself again with them (execve: the same process id and standard streams).
// What it costs: a hole stays with the process until its whole page is free — ~45 MiB more resident
// when idle after bench/scale-tracking.ts's run, ~70 MiB more at its peak. (Keeping freed pages a
// second longer, MIMALLOC_PURGE_DELAY=1000, saved a little more CPU but held the serving thread up
// to ~90 ms at p95 while a heavy read looped, against ~10 ms: tests/e2e/security.test.ts.)
import { readFileSync } from "node:fs";

/** mimalloc's options for a server (MIMALLOC_<option>); any MIMALLOC_ variable set already leaves the allocator to the operator. */
export const SERVER_ALLOCATOR_ENV: Readonly<Record<string, string>> = { MIMALLOC_PURGE_HOLES: "0" };

/**
 * The CLI's arguments start what churns memory long enough to gain from the settings: a server (no
 * command, `serve`, or serve's flags alone; see src/cli.ts) or a log import (`logs import`: 25.2–26.7k
 * → 26.8–29.3k lines/s in four alternating pairs on 300,000 lines, the same peak resident memory).
 * A short command would only pay the second start.
 */
export function wantsServerAllocator(args: readonly string[]): boolean {
  const first = args[0];
  if (first === undefined || first === "serve") return true;
  if (first === "logs") return args[1] === "import";
  return first.startsWith("-") && !["-h", "--help", "-v", "--version"].includes(first);
}

/** How the process was started: its argv and its environment as the system handed them over. */
export interface ProcessStart {
  argv: string[];
  env: Record<string, string>;
}

/**
 * This process's start as Linux records it (/proc/self): argv exactly as given, whatever Bun made of
 * it (a compiled binary's argv, BUN_OPTIONS, runtime flags), and the environment without what Bun
 * loaded from ./.env since. Null where there is no /proc.
 */
export function processStart(read: (path: string) => Uint8Array = (path) => readFileSync(path)): ProcessStart | null {
  try {
    // Bytes that are not UTF-8 could not be handed back as they came: no restart then (fatal).
    const text = (path: string) => new TextDecoder("utf-8", { fatal: true }).decode(read(path));
    const argv = text("/proc/self/cmdline").split("\0").slice(0, -1);
    const env: Record<string, string> = {};
    for (const entry of text("/proc/self/environ").split("\0")) {
      const at = entry.indexOf("=");
      // A name given twice: the first counts, as getenv reads it.
      if (at > 0 && !(entry.slice(0, at) in env)) env[entry.slice(0, at)] = entry.slice(at + 1);
    }
    return argv.length ? { argv, env } : null;
  } catch {
    return null;
  }
}

export interface Relaunch {
  /** What execve runs: the program, its whole argv (argv[0] included) and its environment. */
  file: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * How to start this process again with the server's allocator settings, or null when it needs no
 * restart: not a server or an import; a debugger attached, by flag or by BUN_INSPECT (it would have
 * to attach twice); a file named by an inherited descriptor (`<(zcat log.gz)` is /dev/fd/63: execve
 * keeps only the standard streams); or the environment it was started with already sets one of
 * mimalloc's options (a MIMALLOC_ line in ./.env does not count: the allocator never sees it). The
 * same argv and environment, the settings added: nothing from ./.env is copied in.
 */
export function allocatorRelaunch(p: { args: readonly string[]; start: ProcessStart; execPath: string; execArgv: readonly string[] }): Relaunch | null {
  if (!wantsServerAllocator(p.args)) return null;
  if (p.execArgv.some((flag) => flag.startsWith("--inspect")) || Object.keys(p.start.env).some((name) => name.startsWith("BUN_INSPECT"))) return null;
  if (p.args.some((arg) => /^\/(dev|proc\/self)\/fd\/([3-9]|\d{2,})$/.test(arg))) return null;
  if (Object.keys(p.start.env).some((name) => name.startsWith("MIMALLOC_"))) return null;
  return { file: p.execPath, args: p.start.argv, env: { ...p.start.env, ...SERVER_ALLOCATOR_ENV } };
}

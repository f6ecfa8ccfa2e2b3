// The memory allocator's settings for a server. Bun allocates through mimalloc, which by default
// gives freed memory back to the system within 100 ms, holes inside its pages included. A server
// writing tracking results frees and reuses memory all the time: giving it back and faulting it in
// again cost ~35 % of each instance's CPU in bench/postgres.ts's 10,000-unit run (a third of its
// ~8.5 s), and 35 % of the SQLite run's in bench/tracking.ts. mimalloc reads these variables once,
// as the process starts, so a server started without them starts itself again with them (the same
// process: execve keeps its id, files and signals). What they cost: memory freed stays with the
// process a second longer, and holes inside pages until the page is free — ~45 MiB more resident
// when idle after a run, ~60 MiB more at the peak of bench/scale-tracking.ts's 10,000-unit run.

/** mimalloc's options for a server (MIMALLOC_<option>); any of them set already leaves all to the operator. */
export const SERVER_ALLOCATOR_ENV: Readonly<Record<string, string>> = { MIMALLOC_PURGE_HOLES: "0", MIMALLOC_PURGE_DELAY: "1000" };

/** The CLI's arguments start a server: no command, `serve`, or serve's flags alone (see src/cli.ts). */
export function startsServer(args: readonly string[]): boolean {
  const first = args[0];
  if (first === undefined || first === "serve") return true;
  return first.startsWith("-") && !["-h", "--help", "-v", "--version"].includes(first);
}

export interface Relaunch {
  /** What execve runs: the program and its whole argument list (argv[0] included). */
  file: string;
  args: string[];
  env: Record<string, string | undefined>;
}

/**
 * How to start this process again with the server's allocator settings, or null when it needs no
 * restart (not a server, or the environment already names an option). `compiled`: a
 * `bun build --compile` binary, whose argv holds no script path.
 */
export function allocatorRelaunch(p: { args: readonly string[]; env: Readonly<Record<string, string | undefined>>; execPath: string; execArgv: readonly string[]; script: string; compiled: boolean }): Relaunch | null {
  if (!startsServer(p.args)) return null;
  if (Object.keys(SERVER_ALLOCATOR_ENV).some((name) => p.env[name] !== undefined)) return null;
  return { file: p.execPath, args: [p.execPath, ...p.execArgv, ...(p.compiled ? [] : [p.script]), ...p.args], env: { ...p.env, ...SERVER_ALLOCATOR_ENV } };
}

#!/usr/bin/env bun
// Entry: a server first gets its allocator's settings (src/common/allocator.ts), then the CLI runs
// (src/cli.ts). Nothing else is loaded before that, so a restart costs only Bun's own start.
import { allocatorRelaunch } from "./common/allocator";

const relaunch = allocatorRelaunch({
  args: process.argv.slice(2),
  env: process.env,
  execPath: process.execPath,
  execArgv: process.execArgv,
  script: process.argv[1] ?? "",
  // A compiled binary's modules live in Bun's embedded file system.
  compiled: Bun.main.startsWith("/$bunfs/"),
});
if (relaunch && process.execve) {
  try {
    process.execve(relaunch.file, relaunch.args, relaunch.env);
  } catch {
    // execve refused (an unusual system): the server runs with the allocator's defaults.
  }
}
await import("./cli");

#!/usr/bin/env bun
// Entry: a server first gets its allocator's settings (src/common/allocator.ts), then the CLI runs
// (src/cli.ts). Nothing else is loaded before that, so a restart costs only Bun's own start.
import { allocatorRelaunch, processStart, wantsServerAllocator } from "./common/allocator";

const args = process.argv.slice(2);
// /proc is read only for a command that may restart (not for keys, migrate, …).
const start = process.platform === "linux" && wantsServerAllocator(args) ? processStart() : null;
const relaunch = start && allocatorRelaunch({ args, start, execPath: process.execPath, execArgv: process.execArgv });
if (relaunch && process.execve) {
  try {
    process.execve(relaunch.file, relaunch.args, relaunch.env);
  } catch (error) {
    // execve refused (a sandbox, a missing executable): the server runs with the allocator's defaults.
    process.stderr.write(`answerwatch: could not restart with the allocator's settings (${String(error)}); running with its defaults\n`);
  }
}
await import("./cli");

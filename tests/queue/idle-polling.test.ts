// An idle server's pollers (tracking jobs, webhook deliveries) only read: while another process
// holds the database's write lock, they must not sit in a lock wait on the thread that answers HTTP.
import { Database } from "bun:sqlite";
import { registerSqlFunctions } from "../../src/database";
import { expect, test } from "bun:test";
import { testServer } from "../helpers/app";

test("while another process holds the write lock, an idle server keeps answering", async () => {
  const server = await testServer();
  const other = new Database(server.dbh.sqlite.filename);
  registerSqlFunctions(other);
  other.run("BEGIN IMMEDIATE");
  try {
    // Long enough for both pollers (every second) to have run at least once under the lock.
    await Bun.sleep(1500);
    const asked = Date.now();
    const res = await fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(4000) });
    expect(res.status).toBe(200);
    // A poller stuck in a lock wait would hold the answer back for its busy_timeout (5 s).
    expect(Date.now() - asked).toBeLessThan(2000);
  } finally {
    other.run("ROLLBACK");
    other.close();
    await server.stop();
  }
});

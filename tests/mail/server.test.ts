// backends: sqlite, postgres
// The server sends mail through SMTP_URL (issue #31): `answerwatch mail test --to` queues a message
// in the server's database and the running server delivers it to a local SMTP sink once; `mail list`
// shows it sent. Without SMTP_URL the command says the server sends no mail.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { dirname } from "node:path";
import { ROOT, testServer } from "../helpers/app";
import { startSmtpSink, type SmtpSink } from "../helpers/smtp";

let sink: SmtpSink;
let server: Awaited<ReturnType<typeof testServer>>;

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await testServer({ SMTP_URL: sink.url, MAIL_FROM: "Reports <reports@example.test>" });
  await server.runtime();
});
afterAll(async () => {
  await server.stop();
  await sink.stop();
});

/** The CLI on the server's own database (its DATA_DIR, or its DATABASE_URL on Postgres). */
function cli(args: string[], extra: Record<string, string> = {}) {
  const database = server.backend.kind === "postgres" ? { DATABASE_URL: server.backend.url } : { DATA_DIR: dirname(server.backend.dbPath) };
  const run = Bun.spawnSync([process.execPath, `${ROOT}src/main.ts`, ...args], { env: { PATH: Bun.env.PATH!, LOG_LEVEL: "silent", SMTP_URL: sink.url, ...database, ...extra }, stdout: "pipe", stderr: "pipe" });
  return { code: run.exitCode, out: run.stdout.toString(), err: run.stderr.toString() };
}

test("mail test queues a message that the running server sends once; mail list shows it sent", async () => {
  const queued = cli(["mail", "test", "--to", "ops@example.test"]);
  expect({ code: queued.code, err: queued.err }).toEqual({ code: 0, err: "" });
  expect(queued.out).toContain("queued ");
  const [mail] = await sink.waitFor(1, 15_000);
  expect(mail!.from?.value).toEqual([{ name: "Reports", address: "reports@example.test" }]);
  expect(mail!.subject).toBe("answerwatch: test message");
  expect(mail!.text).toContain("check its mail settings");
  let listed = "";
  for (let i = 0; i < 50 && !listed.includes(" sent "); i++) {
    listed = cli(["mail", "list", "--to", "ops@example.test"]).out;
    if (!listed.includes(" sent ")) await Bun.sleep(100);
  }
  expect(listed).toMatch(/test\s+sent\s+attempts 1\s+ops@example\.test\s+sent \d{4}-/);
  await Bun.sleep(500);
  expect(sink.received).toHaveLength(1);
});

test("without SMTP_URL, or without an address, mail test says so (exit 2) and queues nothing", () => {
  const off = cli(["mail", "test", "--to", "ops@example.test"], { SMTP_URL: "" });
  expect({ code: off.code, err: off.err.trim() }).toEqual({ code: 2, err: "SMTP_URL is not set: the server sends no mail (see .env.example)" });
  expect(cli(["mail", "test", "--to", "not an address"]).code).toBe(2);
  expect(cli(["mail", "list", "--to", "ops@example.test"]).out.trim().split("\n")).toHaveLength(1);
});

// Mail is sent durably (issue #31), on both backends, over real SMTP to a local sink: a queued message
// arrives once with what was queued; a temporary refusal (451) is retried on the schedule and a final
// one (550) is not; a message queued while no SMTP server answers survives a restart and then arrives
// once; two mailers on one database (two instances) send each message exactly once.
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { createLogger } from "../../src/http/log";
import { createMailer, type Mailer } from "../../src/mail/mailer";
import { smtpTransport } from "../../src/mail/smtp";
import { createPgMailStore } from "../../src/mail/store.pg";
import { createSqliteMailStore } from "../../src/mail/store.sqlite";
import type { MailStore } from "../../src/mail/store";
import { sqliteHarness } from "../contracts/harness";
import { pgHarness } from "../contracts/harness.pg";
import { startSmtpSink, type SmtpSink } from "../helpers/smtp";

interface Backend {
  name: string;
  store: MailStore;
  /** Another connection to the same database, as another instance has. */
  second: () => MailStore;
  close(): Promise<void>;
}

const backends: (() => Promise<Backend | null>)[] = [
  async () => {
    const h = sqliteHarness();
    return { name: "sqlite", store: createSqliteMailStore(h.dbh.sqlite), second: () => createSqliteMailStore(h.dbh.sqlite), close: () => h.close() };
  },
  async () => {
    const h = await pgHarness();
    if (!h) return null;
    const pools: SQL[] = [];
    return {
      name: "postgres",
      store: createPgMailStore(h.pg.sql),
      second: () => createPgMailStore(pools[pools.push(new SQL(h.url, { max: 4 })) - 1]!),
      close: async () => {
        for (const p of pools) await p.close();
        await h.close();
      },
    };
  },
];

const logger = createLogger("silent");
const message = (to: string, extra: Record<string, unknown> = {}) => ({ kind: "test", to, subject: `Your report, ${to}`, text: "Plain text body — ünïcode", html: "<p>HTML <b>body</b></p>", at: new Date().toISOString(), ...extra });

for (const make of backends) {
  const backend = await make();
  if (!backend) continue;
  describe(`mail over SMTP (${backend.name})`, () => {
    const mailers: Mailer[] = [];
    const sinks: SmtpSink[] = [];
    const mailer = (store: MailStore, url: string, retryScheduleMs = [100, 100], now?: () => Date) => {
      const m = createMailer({ store, transport: smtpTransport(url, 2000), from: "answerwatch <no-reply@example.test>", logger, retryScheduleMs, timeoutMs: 2000, pollMs: 50, now });
      mailers.push(m);
      return m;
    };
    const sink = async () => {
      const s = await startSmtpSink();
      sinks.push(s);
      return s;
    };
    // A mailer left running by a failed case would take the next case's messages: each case starts alone.
    beforeEach(async () => {
      for (const m of mailers.splice(0)) await m.stop();
    });
    const stateOf = async (to: string) => (await backend.store.messages({ to, limit: 5 }))[0]!;
    const settledState = async (to: string, status: string, ms = 5000) => {
      const until = Date.now() + ms;
      let state = await stateOf(to);
      while (state.status !== status && Date.now() < until) {
        await Bun.sleep(20);
        state = await stateOf(to);
      }
      return state;
    };
    afterAll(async () => {
      for (const m of mailers) await m.stop();
      for (const s of sinks) await s.stop();
      await backend.close();
    });

    test("a queued message arrives once, with its From, To, subject, text and HTML", async () => {
      const s = await sink();
      const to = `first-${backend.name}@example.test`;
      await backend.store.enqueue(message(to));
      const m = mailer(backend.store, s.url);
      m.wake();
      const [mail] = await s.waitFor(1);
      expect(mail!.from?.value).toEqual([{ name: "answerwatch", address: "no-reply@example.test" }]);
      expect(mail!.to && !Array.isArray(mail!.to) ? mail!.to.text : "").toBe(to);
      expect(mail!.subject).toBe(`Your report, ${to}`);
      expect(mail!.text?.trim()).toBe("Plain text body — ünïcode");
      expect(mail!.html).toContain("<b>body</b>");
      expect(await settledState(to, "sent")).toMatchObject({ status: "sent", attempts: 1, last_error: null });
      await Bun.sleep(300);
      expect(s.received).toHaveLength(1);
      await m.stop();
    });

    test("a 451 is retried on the schedule and then arrives once; a 550 fails at once", async () => {
      const s = await sink();
      const m = mailer(backend.store, s.url);
      const later = `later-${backend.name}@example.test`;
      s.refuseNext(1, 451);
      await backend.store.enqueue(message(later));
      m.wake();
      await s.waitFor(1);
      expect(await settledState(later, "sent")).toMatchObject({ status: "sent", attempts: 2 });
      const never = `never-${backend.name}@example.test`;
      s.refuseNext(1, 550);
      await backend.store.enqueue(message(never));
      m.wake();
      const failed = await settledState(never, "failed");
      expect(failed).toMatchObject({ status: "failed", attempts: 1 });
      expect(failed.last_error).toContain("550");
      await Bun.sleep(400);
      expect(s.received.map((r) => (r.to && !Array.isArray(r.to) ? r.to.text : ""))).toEqual([later]);
      await m.stop();
    });

    test("queued while no SMTP server answers, the message survives a restart and then arrives once", async () => {
      const down = await sink();
      const deadUrl = down.url;
      await down.stop();
      const to = `restart-${backend.name}@example.test`;
      await backend.store.enqueue(message(to));
      // Its next try an hour away: the restart, not a retry, is what sends it.
      const before = mailer(backend.store, deadUrl, [3_600_000]);
      before.wake();
      const waiting = await settledState(to, "pending");
      const until = Date.now() + 5000;
      let attempts = waiting.attempts;
      while (attempts < 1 && Date.now() < until) {
        await Bun.sleep(20);
        attempts = (await stateOf(to)).attempts;
      }
      expect(attempts).toBeGreaterThanOrEqual(1);
      // The process stops (a deploy, a crash); a new one starts with an SMTP server that answers.
      await before.stop();
      const up = await sink();
      // The new process runs when the retry is due: its clock an hour and more ahead.
      const after = mailer(backend.second(), up.url, [100], () => new Date(Date.now() + 3_700_000));
      after.wake();
      await up.waitFor(1);
      expect(await settledState(to, "sent")).toMatchObject({ status: "sent" });
      await Bun.sleep(300);
      expect(up.received).toHaveLength(1);
      await after.stop();
    });

    test("two mailers on one database, as two instances: each of 20 messages arrives exactly once", async () => {
      const s = await sink();
      const tos = Array.from({ length: 20 }, (_, i) => `many-${i}-${backend.name}@example.test`);
      for (const to of tos) await backend.store.enqueue(message(to));
      const a = mailer(backend.store, s.url);
      const b = mailer(backend.second(), s.url);
      a.wake();
      b.wake();
      await s.waitFor(20);
      await Bun.sleep(500);
      const got = s.received.map((r) => (r.to && !Array.isArray(r.to) ? r.to.text : "")).sort();
      expect(got).toEqual([...tos].sort());
      for (const to of tos) expect((await stateOf(to)).status).toBe("sent");
      await a.stop();
      await b.stop();
    });

    test("the outbox is pruned: sent and failed messages older than 30 days, at most hourly", async () => {
      const calls: { before: string; limit: number }[] = [];
      const store = { ...backend.store, prune: async (input: { before: string; limit: number }) => (calls.push(input), 0) };
      let clock = Date.UTC(2026, 5, 1, 12);
      const m = mailer(store, "smtp://127.0.0.1:9", [100], () => new Date(clock));
      const waitCalls = async (n: number) => {
        for (let i = 0; i < 200 && calls.length < n; i++) await Bun.sleep(10);
      };
      await waitCalls(1);
      // Polled every 50 ms meanwhile: still one call within the hour.
      await Bun.sleep(200);
      expect(calls).toEqual([{ before: new Date(clock - 30 * 86_400_000).toISOString(), limit: 1000 }]);
      clock += 3_600_001;
      m.wake();
      await waitCalls(2);
      expect(calls.map((c) => c.before)).toEqual([new Date(clock - 3_600_001 - 30 * 86_400_000).toISOString(), new Date(clock - 30 * 86_400_000).toISOString()]);
    });
  });
}

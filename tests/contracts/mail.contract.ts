// The mail outbox store's contract (src/mail/store.ts), for every backend: queued once per dedupe
// key, claimed by one claimer at a time under a lease, recorded only under that lease.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { MailStore } from "../../src/mail/store";
import type { Harness } from "./harness";

export function describeMailStoreContract(name: string, make: () => Promise<Harness & { store: MailStore; other?: MailStore }>) {
  describe(`MailStore contract (${name})`, () => {
    let h: Harness & { store: MailStore; other?: MailStore };
    beforeAll(async () => void (h = await make()));
    afterAll(() => h.close());

    const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
    const message = (to: string, extra: Record<string, unknown> = {}) => ({ kind: "test", to, subject: `Hello ${to}`, text: "plain", html: "<p>html</p>", ...extra });
    const unique = () => `${crypto.randomUUID().slice(0, 8)}@example.com`;
    // Messages of earlier cases are due too: each case claims far in the future only what it queued.
    const mine = async (to: string) => (await h.store.messages({ to, limit: 10 }))[0]!;

    test("a queued message is claimed once, with what sending needs, and recorded as sent under its lease", async () => {
      const to = unique();
      const id = await h.store.enqueue({ ...message(to), at: at(0) });
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      const claimed = (await h.store.claimDue({ now: at(1), leaseUntil: at(61), limit: 100 })).filter((m) => m.to_address === to);
      expect(claimed).toEqual([{ id: id!, kind: "test", to_address: to, subject: `Hello ${to}`, text_body: "plain", html_body: "<p>html</p>", headers: null, attachments: null, attempts: 0 }]);
      // Leased: not due again before the lease ends.
      expect((await h.store.claimDue({ now: at(30), leaseUntil: at(90), limit: 100 })).some((m) => m.id === id)).toBe(false);
      expect(await h.store.finish({ id: id!, leaseUntil: at(61), status: "sent", attempts: 1, nextAt: null, lastError: null, at: at(2) })).toBe(true);
      expect(await mine(to)).toEqual({ id: id!, kind: "test", to_address: to, status: "sent", attempts: 1, last_error: null, sent_at: at(2) });
      // Sent: never claimed again, and a second record is refused.
      expect((await h.store.claimDue({ now: at(10_000), leaseUntil: at(10_060), limit: 1000 })).some((m) => m.id === id)).toBe(false);
      expect(await h.store.finish({ id: id!, leaseUntil: at(61), status: "sent", attempts: 2, nextAt: null, lastError: null, at: at(3) })).toBe(false);
    });

    test("headers and attachments come back with the claim as they were queued", async () => {
      const to = unique();
      const headers = { "List-Unsubscribe": "<https://example.com/u?t=1>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" };
      const attachments = [{ filename: "report.html", contentType: "text/html", content: "<!doctype html><p>é</p>" }];
      const id = await h.store.enqueue({ ...message(to, { headers, attachments }), at: at(0) });
      const claimed = (await h.store.claimDue({ now: at(1), leaseUntil: at(61), limit: 1000 })).find((m) => m.id === id)!;
      expect(JSON.parse(claimed.headers!)).toEqual(headers);
      expect(JSON.parse(claimed.attachments!)).toEqual(attachments);
    });

    test("a message sent or failed keeps its envelope, not its body or attachments; a pending retry keeps both", async () => {
      const body = async (id: string) => (await h.inspect("SELECT subject, text_body, html_body, attachments FROM mail_outbox WHERE id = ?", id))[0];
      const attachments = [{ filename: "report.html", contentType: "text/html", content: "<p>report</p>" }];
      const ids: string[] = [];
      for (const outcome of ["sent", "failed", "pending"] as const) {
        const to = unique();
        const id = (await h.store.enqueue({ ...message(to, { text: "your code is 123456", attachments }), at: at(0) }))!;
        await h.store.claimDue({ now: at(1), leaseUntil: at(61), limit: 1000 });
        expect(await h.store.finish({ id, leaseUntil: at(61), status: outcome, attempts: 1, nextAt: outcome === "pending" ? at(120) : null, lastError: null, at: at(2) })).toBe(true);
        ids.push(id);
      }
      const [sent, failed, pending] = await Promise.all(ids.map(body));
      expect(sent).toEqual({ subject: expect.stringMatching(/^Hello /), text_body: "", html_body: null, attachments: null });
      expect(failed).toEqual({ subject: expect.stringMatching(/^Hello /), text_body: "", html_body: null, attachments: null });
      expect(pending).toMatchObject({ text_body: "your code is 123456", html_body: "<p>html</p>" });
      expect(JSON.parse((pending as { attachments: string }).attachments)).toEqual(attachments);
    });

    test("prune deletes sent and failed messages queued before a time, at most `limit` a call; pending ones and newer ones stay", async () => {
      const queued = async (status: "sent" | "failed" | "pending", created: string) => {
        const to = unique();
        const id = (await h.store.enqueue({ ...message(to), at: at(0) }))!;
        await h.inspect(`UPDATE mail_outbox SET status = ?, created_at = ${h.backend === "postgres" ? "CAST(? AS timestamptz)" : "?"} WHERE id = ?`, status, created, id);
        return id;
      };
      const old = "2020-01-01T00:00:00.000Z";
      const oldSent = await Promise.all([queued("sent", old), queued("sent", old), queued("failed", old)]);
      const kept = [await queued("pending", old), await queued("sent", "2020-03-01T00:00:00.000Z")];
      const left = async (ids: string[]) => (await h.inspect(`SELECT id FROM mail_outbox WHERE id IN (${ids.map(() => "?").join(", ")})`, ...ids)).length;
      expect(await h.store.prune({ before: "2020-02-01T00:00:00.000Z", limit: 2 })).toBe(2);
      expect(await left(oldSent)).toBe(1);
      expect(await h.store.prune({ before: "2020-02-01T00:00:00.000Z", limit: 2 })).toBe(1);
      expect(await left(oldSent)).toBe(0);
      expect(await left(kept)).toBe(2);
    });

    test("a dedupe key queues once", async () => {
      const to = unique();
      const key = `digest:${to}:2026-W01`;
      expect(await h.store.enqueue({ ...message(to, { dedupeKey: key }), at: at(0) })).toMatch(/^[0-9a-f-]{36}$/);
      expect(await h.store.enqueue({ ...message(to, { dedupeKey: key, subject: "again" }), at: at(1) })).toBeNull();
      expect(await h.store.messages({ to, limit: 10 })).toHaveLength(1);
    });

    test("a retry is due again at its time; an expired lease lets another claimer take it, and the first can no longer record", async () => {
      const to = unique();
      const id = (await h.store.enqueue({ ...message(to), at: at(0) }))!;
      const first = (await h.store.claimDue({ now: at(20_000), leaseUntil: at(20_060), limit: 1000 })).find((m) => m.id === id)!;
      expect(first.attempts).toBe(0);
      expect(await h.store.finish({ id, leaseUntil: at(20_060), status: "pending", attempts: 1, nextAt: at(20_100), lastError: "421 try later", at: at(20_001) })).toBe(true);
      expect((await h.store.claimDue({ now: at(20_099), leaseUntil: at(20_159), limit: 1000 })).some((m) => m.id === id)).toBe(false);
      const second = (await h.store.claimDue({ now: at(20_100), leaseUntil: at(20_160), limit: 1000 })).find((m) => m.id === id)!;
      expect(second.attempts).toBe(1);
      // That claimer died; its lease ran out and another took the message.
      const third = (await h.store.claimDue({ now: at(20_161), leaseUntil: at(20_221), limit: 1000 })).find((m) => m.id === id)!;
      expect(third.id).toBe(id);
      expect(await h.store.finish({ id, leaseUntil: at(20_160), status: "sent", attempts: 2, nextAt: null, lastError: null, at: at(20_162) })).toBe(false);
      expect(await h.store.finish({ id, leaseUntil: at(20_221), status: "failed", attempts: 2, nextAt: null, lastError: "550 no such user", at: at(20_163) })).toBe(true);
      expect(await mine(to)).toMatchObject({ status: "failed", attempts: 2, last_error: "550 no such user", sent_at: null });
    });

    test("claimers racing over the same due messages take each exactly once", async () => {
      const tos = Array.from({ length: 30 }, unique);
      const ids = new Set<string>();
      for (const to of tos) ids.add((await h.store.enqueue({ ...message(to), at: at(40_000) }))!);
      const claimers = [h.store, h.other ?? h.store, h.store, h.other ?? h.store];
      const claims = await Promise.all(claimers.map((store) => store.claimDue({ now: at(40_001), leaseUntil: at(40_061), limit: 10 })));
      const taken = claims.flat().filter((m) => ids.has(m.id)).map((m) => m.id);
      expect(new Set(taken).size).toBe(taken.length);
      const rest = (await h.store.claimDue({ now: at(40_002), leaseUntil: at(40_062), limit: 1000 })).filter((m) => ids.has(m.id)).map((m) => m.id);
      expect(new Set([...taken, ...rest]).size).toBe(30);
      expect(taken.length + rest.length).toBe(30);
    });
  });
}

// The mail outbox on SQLite (store.ts says what each operation does).
import type { Database } from "bun:sqlite";
import { jsonOrNull, type ClaimedMail, type MailState, type MailStore } from "./store";

export function createSqliteMailStore(sqlite: Database): MailStore {
  const q = {
    enqueue: sqlite.prepare(
      `INSERT INTO mail_outbox (kind, to_address, subject, text_body, html_body, headers, attachments, dedupe_key, next_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (dedupe_key) DO NOTHING RETURNING id`,
    ),
    // A read first: an UPDATE takes the database's write lock even when it matches nothing, and the mailer polls.
    due: sqlite.prepare(`SELECT EXISTS (SELECT 1 FROM mail_outbox WHERE status = 'pending' AND next_at <= ?1) AS due`),
    claim: sqlite.prepare(
      `UPDATE mail_outbox SET next_at = ?1
       WHERE id IN (SELECT id FROM mail_outbox WHERE status = 'pending' AND next_at <= ?2 ORDER BY next_at, id LIMIT ?3)
       RETURNING id, kind, to_address, subject, text_body, html_body, headers, attachments, attempts`,
    ),
    finish: sqlite.prepare(
      `UPDATE mail_outbox SET status = ?2, attempts = ?3, next_at = ?4, last_error = ?5, sent_at = CASE WHEN ?2 = 'sent' THEN ?6 ELSE sent_at END,
              text_body = CASE WHEN ?2 = 'pending' THEN text_body ELSE '' END, html_body = CASE WHEN ?2 = 'pending' THEN html_body END,
              attachments = CASE WHEN ?2 = 'pending' THEN attachments END
       WHERE id = ?1 AND status = 'pending' AND next_at = ?7`,
    ),
    prune: sqlite.prepare(`DELETE FROM mail_outbox WHERE id IN (SELECT id FROM mail_outbox WHERE status IN ('sent', 'failed') AND created_at < ?1 LIMIT ?2)`),
    messages: sqlite.prepare(
      `SELECT id, kind, to_address, status, attempts, last_error, sent_at FROM mail_outbox WHERE (?1 IS NULL OR to_address = ?1) ORDER BY created_at DESC, id DESC LIMIT ?2`,
    ),
  };
  const claimTx = sqlite.transaction((now: string, leaseUntil: string, limit: number) => q.claim.all(leaseUntil, now, limit) as ClaimedMail[]);
  return {
    async enqueue(m) {
      const row = q.enqueue.get(m.kind, m.to, m.subject, m.text, m.html, jsonOrNull(m.headers), jsonOrNull(m.attachments), m.dedupeKey ?? null, m.at, m.at) as { id: string } | null;
      return row?.id ?? null;
    },
    async claimDue({ now, leaseUntil, limit }) {
      if ((q.due.get(now) as { due: number }).due === 0) return [];
      return claimTx.immediate(now, leaseUntil, limit);
    },
    async prune({ before, limit }) {
      return q.prune.run(before, limit).changes;
    },
    async finish(f) {
      return q.finish.run(f.id, f.status, f.attempts, f.nextAt, f.lastError, f.at, f.leaseUntil).changes > 0;
    },
    async messages({ to, limit }) {
      return q.messages.all(to, limit) as MailState[];
    },
  };
}

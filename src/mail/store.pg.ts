// The mail outbox on Postgres (store.ts says what each operation does): claims skip the rows another
// instance is claiming (FOR UPDATE SKIP LOCKED).
import type { SQL } from "bun";
import { isUuid, plainRow } from "../db/pg/values";
import { jsonOrNull, type ClaimedMail, type MailState, type MailStore } from "./store";

export function createPgMailStore(sql: SQL): MailStore {
  return {
    async enqueue(m) {
      const [row] = await sql`
        INSERT INTO mail_outbox (kind, to_address, subject, text_body, html_body, headers, attachments, dedupe_key, next_at, created_at)
        VALUES (${m.kind}, ${m.to}, ${m.subject}, ${m.text}, ${m.html}, ${jsonOrNull(m.headers)}, ${jsonOrNull(m.attachments)}, ${m.dedupeKey ?? null}, ${m.at}, ${m.at})
        ON CONFLICT (dedupe_key) DO NOTHING RETURNING id`;
      return row ? String(row.id) : null;
    },
    async claimDue({ now, leaseUntil, limit }) {
      const rows = await sql`
        WITH due AS (
          SELECT id, next_at FROM mail_outbox WHERE status = 'pending' AND next_at <= ${now}
           ORDER BY next_at, id LIMIT ${limit} FOR UPDATE SKIP LOCKED
        )
        UPDATE mail_outbox m SET next_at = ${leaseUntil} FROM due WHERE m.id = due.id
        RETURNING m.id, m.kind, m.to_address, m.subject, m.text_body, m.html_body, m.headers, m.attachments, m.attempts`;
      return rows.map((r: Record<string, unknown>) => plainRow<ClaimedMail>(r));
    },
    async finish(f) {
      if (!isUuid(f.id)) return false;
      const rows = await sql`
        UPDATE mail_outbox SET status = ${f.status}, attempts = ${f.attempts}, next_at = ${f.nextAt}, last_error = ${f.lastError},
               sent_at = CASE WHEN ${f.status} = 'sent' THEN ${f.at}::timestamptz ELSE sent_at END,
               text_body = CASE WHEN ${f.status} = 'pending' THEN text_body ELSE '' END, html_body = CASE WHEN ${f.status} = 'pending' THEN html_body END,
               attachments = CASE WHEN ${f.status} = 'pending' THEN attachments END
         WHERE id = ${f.id} AND status = 'pending' AND next_at = ${f.leaseUntil} RETURNING id`;
      return rows.length > 0;
    },
    async prune({ before, limit }) {
      const rows = await sql`
        DELETE FROM mail_outbox WHERE id IN (SELECT id FROM mail_outbox WHERE status IN ('sent', 'failed') AND created_at < ${before}::timestamptz LIMIT ${limit}) RETURNING id`;
      return rows.length;
    },
    async messages({ to, limit }) {
      const rows = await sql`
        SELECT id, kind, to_address, status, attempts, last_error, sent_at FROM mail_outbox
         WHERE (${to}::text IS NULL OR to_address = ${to}) ORDER BY created_at DESC, id DESC LIMIT ${limit}`;
      return rows.map((r: Record<string, unknown>) => plainRow<MailState>(r));
    },
  };
}

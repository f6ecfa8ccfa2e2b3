// Durable sending of queued mail (store.ts): claimed with a lease, sent, recorded under the lease;
// a temporary failure waits its turn in the retry schedule, a refusal (5xx) ends it. A process killed
// between queueing and sending leaves the message pending for whichever instance claims it next.
import type { Logger } from "../http/log";
import type { ClaimedMail, MailStore } from "./store";
import { MailRefused, type MailTransport } from "./transport";

export interface MailerOptions {
  store: Pick<MailStore, "claimDue" | "finish" | "prune">;
  transport: MailTransport;
  from: string;
  logger: Logger;
  /** Waits after the 1st, 2nd, … failed attempt; after the last one the message is failed. */
  retryScheduleMs: number[];
  /** Longest a send may take (the lease adds 30 s to it). */
  timeoutMs: number;
  now?: () => Date;
  pollMs?: number;
  concurrency?: number;
}

/** Sent and failed messages are kept this long (their envelopes: bodies go once sent), then deleted. */
export const MAIL_KEEP_DAYS = 30;
const PRUNE_EVERY_MS = 3_600_000;
const PRUNE_BATCH = 1000;

export function createMailer(options: MailerOptions) {
  const { store, transport, logger } = options;
  const now = options.now ?? (() => new Date());
  const iso = (offsetMs = 0) => new Date(now().getTime() + offsetMs).toISOString();
  const concurrency = options.concurrency ?? 4;
  const leaseMs = options.timeoutMs + 30_000;
  let again = false;
  let stopped = false;
  /** The pass under way, if any. */
  let current: Promise<void> | null = null;

  async function send(m: ClaimedMail, leaseUntil: string): Promise<void> {
    const attempts = m.attempts + 1;
    let status: "sent" | "pending" | "failed" = "sent";
    let error: string | null = null;
    let nextAt: string | null = null;
    try {
      await transport.send({ from: options.from, to: m.to_address, subject: m.subject, text: m.text_body, html: m.html_body, ...(m.headers ? { headers: JSON.parse(m.headers) } : {}), ...(m.attachments ? { attachments: JSON.parse(m.attachments) } : {}) });
    } catch (e) {
      error = (e instanceof Error ? e.message : String(e)).slice(0, 500);
      const permanent = e instanceof MailRefused && e.permanent;
      status = permanent || attempts > options.retryScheduleMs.length ? "failed" : "pending";
      if (status === "pending") nextAt = iso(options.retryScheduleMs[attempts - 1]!);
    }
    const ours = await store.finish({ id: m.id, leaseUntil, status, attempts, nextAt, lastError: error, at: iso() });
    logger.info("mail", { mail_id: m.id, kind: m.kind, outcome: status, attempts, ...(error ? { error } : {}), ...(ours ? {} : { note: "lease lost: recorded by another instance" }) });
  }

  let prunedAt = -Infinity;
  /** Deletes old sent and failed messages, at most hourly and PRUNE_BATCH at a time (the next hour takes the rest). */
  async function prune(): Promise<void> {
    if (now().getTime() - prunedAt < PRUNE_EVERY_MS) return;
    prunedAt = now().getTime();
    const deleted = await store.prune({ before: iso(-MAIL_KEEP_DAYS * 86_400_000), limit: PRUNE_BATCH });
    if (deleted) logger.info("mail outbox pruned", { deleted, keep_days: MAIL_KEEP_DAYS });
  }

  /** Claims and sends until nothing is due (or stopped). */
  async function drain(): Promise<void> {
    // A failed prune is logged and tried again next hour; sending goes on.
    await prune().catch((error) => logger.error("mail outbox prune failed", { error: String(error) }));
    try {
      do {
        again = false;
        for (let round = 0; round < 1000 && !stopped; round++) {
          const leaseUntil = iso(leaseMs);
          const claimed = await store.claimDue({ now: iso(), leaseUntil, limit: concurrency });
          if (!claimed.length) break;
          await Promise.all(claimed.map((m) => send(m, leaseUntil).catch((error) => logger.error("mail send crashed", { mail_id: m.id, error: String(error) }))));
        }
      } while (again && !stopped);
    } catch (error) {
      logger.error("mail claim failed", { error: String(error) });
    }
  }

  /** One pass at a time: a kick during a pass makes it look once more when done. */
  function kick() {
    if (stopped) return;
    if (current) {
      again = true;
      return;
    }
    current = drain().finally(() => (current = null));
  }
  const timer = setInterval(kick, options.pollMs ?? 5000);
  queueMicrotask(kick);

  return {
    /** Something was queued: look now rather than at the next poll. */
    wake: () => queueMicrotask(kick),
    async stop() {
      stopped = true;
      clearInterval(timer);
      // A send under way finishes (bounded by its time-out) and is recorded.
      await current;
      transport.close();
    },
  };
}

export type Mailer = ReturnType<typeof createMailer>;

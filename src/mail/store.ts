// The mail outbox (DESIGN §2: only stores speak SQL). A message is queued in the transaction of
// whatever asks for it, claimed with a lease (its next_at moved to the lease's end, so no other
// instance sees it due meanwhile), and its attempt recorded only while that lease holds: a message is
// sent once whatever the number of instances, and a restart picks up what was pending.

export type MailStatus = "pending" | "sent" | "failed";

export interface MailMessage {
  /** What the message is (recovery, invite, digest, alert, test): for the log and the tests. */
  kind: string;
  to: string;
  subject: string;
  text: string;
  html: string | null;
  /** Queued once: a second enqueue with the same key adds nothing (a digest of one week, say). */
  dedupeKey?: string | null;
  /** Extra headers (List-Unsubscribe …). */
  headers?: Record<string, string> | null;
  attachments?: MailAttachment[] | null;
}

export interface MailAttachment {
  filename: string;
  contentType: string;
  /** The file's text (reports are HTML). */
  content: string;
}

export interface ClaimedMail {
  id: string;
  kind: string;
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string | null;
  /** JSON of MailMessage.headers and .attachments, as stored. */
  headers: string | null;
  attachments: string | null;
  attempts: number;
}

export interface MailState {
  id: string;
  kind: string;
  to_address: string;
  status: MailStatus;
  attempts: number;
  last_error: string | null;
  sent_at: string | null;
}

export interface MailStore {
  /** Queues a message due `at`; null (and nothing added) when its dedupeKey is queued already. */
  enqueue(input: MailMessage & { at: string }): Promise<string | null>;
  /** Claims the (up to `limit`) longest-due pending messages at `now`, leasing them until `leaseUntil`. */
  claimDue(input: { now: string; leaseUntil: string; limit: number }): Promise<ClaimedMail[]>;
  /**
   * Records an attempt's outcome if the message is still pending under the lease it was claimed
   * with; false otherwise (nothing written). A message sent or failed keeps its envelope (kind,
   * address, subject, status) but not its body or attachments: recovery codes and links must not
   * outlive their use, and a digest's report was one copy per recipient.
   */
  finish(input: { id: string; leaseUntil: string; status: MailStatus; attempts: number; nextAt: string | null; lastError: string | null; at: string }): Promise<boolean>;
  /** Deletes up to `limit` sent or failed messages queued before `before`; how many it deleted. */
  prune(input: { before: string; limit: number }): Promise<number>;
  /** The messages to `to` (all when null), newest first, at most `limit`. */
  messages(input: { to: string | null; limit: number }): Promise<MailState[]>;
}

/** Optional JSON columns: null stays null (no "null" text). */
export const jsonOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : JSON.stringify(value));

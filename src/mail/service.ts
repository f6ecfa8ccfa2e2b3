// Mail for the features (recovery, invitations, digests): queued in the outbox, sent by the mailer
// of whichever instance claims it. Without SMTP_URL nothing is queued: `enabled` says so, and each
// feature offers its fallback (a link to copy, the CLI) instead.
import type { MailMessage, MailStore } from "./store";

export interface MailService {
  /** Whether the server sends mail (SMTP_URL is set). */
  readonly enabled: boolean;
  /** Queues a message (once per dedupeKey); its id, or null when deduplicated or when mail is off. */
  queue(message: MailMessage): Promise<string | null>;
}

export function createMailService(deps: { store: Pick<MailStore, "enqueue">; enabled: boolean; now?: () => Date; wake?: () => void }): MailService {
  const now = deps.now ?? (() => new Date());
  return {
    enabled: deps.enabled,
    async queue(message) {
      if (!deps.enabled) return null;
      const id = await deps.store.enqueue({ ...message, at: now().toISOString() });
      if (id) deps.wake?.();
      return id;
    },
  };
}

/** Text for an HTML mail body. */
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

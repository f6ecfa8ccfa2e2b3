// Sending one message over SMTP with nodemailer (a well-kept library: SMTP, STARTTLS, auth, MIME and
// encodings done right, where hand-written SMTP would get line lengths and encodings wrong). Loaded
// only when SMTP_URL is set.
import nodemailer from "nodemailer";
import { MailRefused, type MailTransport } from "./transport";

/** A transport for SMTP_URL (smtp://user:pass@host:587 or smtps://…:465). */
export function smtpTransport(url: string, timeoutMs: number): MailTransport {
  const transport = nodemailer.createTransport(url, { connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs });
  return {
    async send(mail) {
      try {
        await transport.sendMail({ from: mail.from, to: mail.to, subject: mail.subject, text: mail.text, ...(mail.html ? { html: mail.html } : {}), ...(mail.headers ? { headers: mail.headers } : {}), ...(mail.attachments?.length ? { attachments: mail.attachments } : {}) });
      } catch (error) {
        const e = error as { responseCode?: number; response?: string; message?: string };
        const code = e.responseCode ?? 0;
        // 5xx is the server's final answer for this message; anything else (4xx, a connection that
        // failed or timed out) may go through later.
        throw new MailRefused(e.response ?? e.message ?? String(error), code >= 500 && code < 600);
      }
    },
    close: () => transport.close(),
  };
}

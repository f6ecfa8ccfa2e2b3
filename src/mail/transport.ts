// What the mailer needs of a way to send mail (smtp.ts is the one the server uses).
export interface OutgoingMail {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string | null;
  headers?: Record<string, string>;
  attachments?: { filename: string; contentType: string; content: string }[];
}

/** Sends one message; throws with `permanent` true when the server refused it for good (5xx). */
export interface MailTransport {
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

export class MailRefused extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
  }
}


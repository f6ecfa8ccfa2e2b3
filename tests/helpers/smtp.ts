// A local SMTP sink for the mail tests (smtp-server, the SMTP server of the nodemailer project): it
// keeps every message it accepts, parsed (mailparser), and can answer the next messages with an
// SMTP error instead.
import { simpleParser, type ParsedMail } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface SmtpSink {
  port: number;
  url: string;
  received: ParsedMail[];
  /** The next `count` messages are refused with `code` (451: try later; 550: never). */
  refuseNext(count: number, code: number): void;
  /** Resolves once `count` messages have arrived (or rejects after `ms`). */
  waitFor(count: number, ms?: number): Promise<ParsedMail[]>;
  stop(): Promise<void>;
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const received: ParsedMail[] = [];
  let refusals: { count: number; code: number } = { count: 0, code: 0 };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", async () => {
        if (refusals.count > 0) {
          refusals.count--;
          const error = Object.assign(new Error(refusals.code >= 500 ? "5.1.1 mailbox unavailable" : "4.3.0 try again later"), { responseCode: refusals.code });
          return callback(error);
        }
        received.push(await simpleParser(Buffer.concat(chunks)));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as { port: number }).port;
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    received,
    refuseNext: (count, code) => (refusals = { count, code }),
    async waitFor(count, ms = 10_000) {
      const until = Date.now() + ms;
      while (received.length < count) {
        if (Date.now() > until) throw new Error(`${received.length} of ${count} messages arrived in ${ms} ms`);
        await Bun.sleep(10);
      }
      return received;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

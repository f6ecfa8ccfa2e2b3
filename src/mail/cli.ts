// `answerwatch mail test --to ADDRESS`: queues a test message, which the running server sends through
// SMTP_URL (an operator's check of the mail settings); `answerwatch mail list [--to ADDRESS]`: the
// newest messages and where each stands.
import { terminalSafe } from "../common/terminal";
import type { Config } from "../config";
import { createMailService } from "./service";
import type { MailStore } from "./store";

const ADDRESS = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

export async function runMailCommand(args: string[], deps: { store: MailStore; config: Pick<Config, "mail" | "publicUrl">; out?: (line: string) => void; err?: (line: string) => void }): Promise<number> {
  const out = deps.out ?? ((line) => void process.stdout.write(`${line}\n`));
  const err = deps.err ?? ((line) => void process.stderr.write(`${line}\n`));
  const [sub] = args;
  if (sub === "test") {
    const to = flag(args, "--to")?.trim();
    if (!to || !ADDRESS.test(to)) {
      err("usage: answerwatch mail test --to ADDRESS");
      return 2;
    }
    if (!deps.config.mail.smtpUrl) {
      err("SMTP_URL is not set: the server sends no mail (see .env.example)");
      return 2;
    }
    const mail = createMailService({ store: deps.store, enabled: true });
    const id = await mail.queue({
      kind: "test",
      to,
      subject: "answerwatch: test message",
      text: `This message was sent by answerwatch at ${deps.config.publicUrl} to check its mail settings (SMTP_URL, MAIL_FROM). Nothing else to do.`,
      html: null,
    });
    out(`queued ${id}: the running server sends it within a few seconds (answerwatch mail list --to ${to})`);
    return 0;
  }
  if (sub === "list") {
    const to = flag(args, "--to")?.trim() ?? null;
    for (const m of await deps.store.messages({ to, limit: 50 })) out(terminalSafe(`${m.id}  ${m.kind.padEnd(9)} ${m.status.padEnd(7)} attempts ${m.attempts}  ${m.to_address}${m.sent_at ? `  sent ${m.sent_at}` : ""}${m.last_error ? `  last error: ${m.last_error}` : ""}`));
    return 0;
  }
  err("usage: answerwatch mail test --to ADDRESS | mail list [--to ADDRESS]");
  return 2;
}

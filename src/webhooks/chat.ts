// The `slack` endpoint format: chat incoming webhooks (Slack, Microsoft Teams connectors,
// Mattermost, Discord's /slack URL) take `{"text": …}` and show it as a message. An event that
// carries its own `text` (a digest) is sent as that; the others get one line saying what happened.

import { points } from "../common/format";

type Data = Record<string, unknown>;

const pts = (delta: unknown) => points(typeof delta === "number" ? delta : null);

/** Slack's mrkdwn asks for &, < and > escaped in text (links are written `<url|label>`). */
export const slackEscape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

const LINES: Record<string, (d: Data) => string> = {
  "tracking.completed": (d) => `Tracking run ${d.job_id} completed.`,
  "tracking.failed": (d) => `Tracking run ${d.job_id} failed${d.failed_reason ? `: ${d.failed_reason}` : ""}.`,
  "suggestion.created": (d) => `New suggestion: ${(d.suggestion as Data | undefined)?.title ?? ""}`,
  "visibility.changed": (d) => `Visibility on ${d.platform} ${(d.change as Data | undefined)?.verdict ?? "changed"}: ${pts((d.change as Data | undefined)?.delta)}.`,
  "crawler.first_seen": (d) => `First visit of ${d.bot}${d.operator ? ` (${d.operator})` : ""} at ${d.path}.`,
  "webhook.test": () => "answerwatch test message: this endpoint receives answerwatch events.",
};

/** The chat message of an event; `&`, `<` and `>` escaped as Slack's mrkdwn asks (a digest's text is escaped by its renderer). */
export function chatMessage(type: string, data: unknown): { text: string } {
  const d = (data && typeof data === "object" ? data : {}) as Data;
  if (typeof d.text === "string") return { text: d.text };
  const line = (LINES[type] ?? (() => `answerwatch event ${type}`))(d);
  return { text: slackEscape(line) };
}

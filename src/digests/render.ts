// A digest and a visibility alert in words: the mail's text and HTML parts and the chat message
// (Slack's and Teams' incoming webhooks take `{"text": …}` with their light markdown). Pure.
import { changeText, int, intervalText, pct, points, VERDICT_TEXT } from "../common/format";
import { escapeHtml } from "../mail/service";
import type { VisibilityAlert } from "../insights/alerts";
import { noMoveText, togetherText } from "../insights/changes";
import { slackEscape } from "../webhooks/chat";
import type { Digest } from "./model";

const KIND_WORD = { weekly: "Weekly", monthly: "Monthly" } as const;

export const digestSubject = (d: Digest) => `${KIND_WORD[d.kind]} digest: ${d.brand.name}, ${d.window.from} – ${d.window.to}`;

/** The headline in one line: value, interval, n, change and verdict. */
function headline(d: Digest): string {
  const v = d.visibility_rate;
  if (!v.n) return `No answers to non-branded prompts between ${d.window.from} and ${d.window.to}.`;
  const change = v.change.delta === null ? "no comparison (no prompt answered in both periods)" : `${changeText(v.change)}, ${VERDICT_TEXT[v.change.verdict] ?? v.change.verdict}`;
  return `Non-branded visibility ${pct(v.value)} (${intervalText(v)}, n = ${int(v.n)}); change ${change}.`;
}

const moveLine = (m: Digest["moves"][number]) =>
  `${m.direction === "up" ? "▲" : "▼"} ${m.label}: ${changeText({ delta: m.delta, ci_low: m.ci_low, ci_high: m.ci_high })} (n ${int(m.n_current)} vs ${int(m.n_previous)} compared); now ${pct(m.value)} of all ${int(m.n)} answers`;

const promptLine = (p: Digest["prompts"]["gained"][number]) => `“${p.text}” (${p.platforms.join(", ")})`;

/** The sections as (title, lines): one source for the text, HTML and chat renderings. */
function sections(d: Digest): { title: string; lines: string[]; more?: number }[] {
  const moves = d.moves.map(moveLine);
  const together = togetherText(d.tested, d.moves.length);
  for (const p of d.model_changes) moves.push(`${p} reported different models in the two periods: part of any move there may be the model.`);
  return [
    { title: "What changed", lines: moves.length ? [...moves, ...(together ? [together] : [])] : [noMoveText(d.tested)] },
    { title: `Prompts gained (${d.prompts.gained_count})`, lines: d.prompts.gained.map(promptLine), more: d.prompts.gained_count - d.prompts.gained.length },
    { title: `Prompts lost (${d.prompts.lost_count})`, lines: d.prompts.lost.map(promptLine), more: d.prompts.lost_count - d.prompts.lost.length },
    { title: "Top suggestions", lines: d.suggestions.map((s) => `[${s.priority}] ${s.title}`) },
  ];
}

const shareOfVoiceLine = (d: Digest) =>
  d.share_of_voice.delta === null
    ? `Share of voice ${pct(d.share_of_voice.value)}.`
    : `Share of voice ${pct(d.share_of_voice.value)} (${points(d.share_of_voice.delta)}, not tested for noise${d.share_of_voice.competitors_changed ? "; competitors changed since the previous period" : ""}).`;

export function digestText(d: Digest, unsubscribeUrl: string | null): string {
  const out = [`${d.brand.name} — ${d.organization.name}`, `${d.window.from} – ${d.window.to}, compared with ${d.previous.from} – ${d.previous.to}`, "", headline(d), shareOfVoiceLine(d)];
  for (const s of sections(d)) {
    if (!s.lines.length) continue;
    out.push("", s.title, ...s.lines.map((l) => `- ${l}`));
    if (s.more) out.push(`- and ${s.more} more`);
  }
  out.push("", `Open the overview: ${d.links.overview}`, `Client report: ${d.links.report}`);
  if (unsubscribeUrl) out.push("", `You receive this because you chose ${d.kind} digests of ${d.brand.name}. Unsubscribe: ${unsubscribeUrl}`);
  return out.join("\n");
}

export function digestHtml(d: Digest, unsubscribeUrl: string | null): string {
  const e = escapeHtml;
  const parts = [
    `<h2 style="margin:0">${e(d.brand.name)}</h2>`,
    `<p style="color:#555;margin:4px 0 12px">${e(d.organization.name)} · ${d.window.from} – ${d.window.to}, compared with ${d.previous.from} – ${d.previous.to}</p>`,
    `<p><b>${e(headline(d))}</b><br>${e(shareOfVoiceLine(d))}</p>`,
  ];
  for (const s of sections(d)) {
    if (!s.lines.length) continue;
    parts.push(`<h3 style="margin:16px 0 4px">${e(s.title)}</h3><ul>${s.lines.map((l) => `<li>${e(l)}</li>`).join("")}${s.more ? `<li>and ${s.more} more</li>` : ""}</ul>`);
  }
  parts.push(`<p><a href="${e(d.links.overview)}">Open the overview</a> · <a href="${e(d.links.report)}">Client report</a></p>`);
  if (unsubscribeUrl) parts.push(`<p style="color:#777;font-size:12px">You receive this because you chose ${d.kind} digests of ${e(d.brand.name)}. <a href="${e(unsubscribeUrl)}">Unsubscribe</a></p>`);
  return `<div style="font-family:system-ui,sans-serif;max-width:640px">${parts.join("\n")}</div>`;
}

/** Slack-style mrkdwn: `*bold*`, `<url|label>` links, text escaped as Slack asks. */
const chatEscape = slackEscape;

export function digestChatText(d: Digest): string {
  const out = [`*${chatEscape(digestSubject(d))}*`, chatEscape(headline(d)), chatEscape(shareOfVoiceLine(d))];
  for (const s of sections(d)) {
    if (!s.lines.length) continue;
    out.push("", `*${chatEscape(s.title)}*`, ...s.lines.map((l) => `• ${chatEscape(l)}`));
    if (s.more) out.push(`• and ${s.more} more`);
  }
  out.push("", `<${d.links.overview}|Open the overview> · <${d.links.report}|Client report>`);
  return out.join("\n");
}

export const alertSubject = (brandName: string, a: VisibilityAlert) => `${brandName}: visibility on ${a.platform} ${a.change.verdict} ${points(a.change.delta)}`;

export function alertText(brandName: string, a: VisibilityAlert, link: string, unsubscribeUrl: string): string {
  return [
    `Visibility of ${brandName} on ${a.platform} moved ${changeText(a.change)}: ${pct(a.current.value)} (${intervalText(a.current)}, n = ${int(a.current.n)}) over ${a.window.from} – ${a.window.to}, against ${pct(a.previous.value)} (n = ${int(a.previous.n)}) over ${a.previous_window.from} – ${a.previous_window.to}, on the prompts answered in both weeks.`,
    ...(a.change.model_changed ? ["", `${a.platform} reported different models in the two weeks: part of the move may be the model.`] : []),
    "",
    `Open the overview: ${link}`,
    "",
    `You receive this because you asked for alerts about ${brandName}. Unsubscribe: ${unsubscribeUrl}`,
  ].join("\n");
}

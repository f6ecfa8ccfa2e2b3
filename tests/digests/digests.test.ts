// backends: sqlite, postgres
// Digests and mailed alerts (issue #31): each member chooses weekly or monthly digests per brand
// (and alerts); nobody gets mail without choosing it. A weekly digest is the overview's "what
// changed" for the last complete ISO week — its numbers are insights_overview's and
// insights_prompts' for that window (read here through supabase-js), and its headline is checked
// against the counts of the rows this test wrote. The same digest goes to a Slack-compatible
// incoming webhook as `{"text": …}`; every mail carries a one-click unsubscribe (RFC 8058). Mail
// goes only to an address its owner confirmed by a link mailed to it (double opt-in): this server
// proves no address at sign-up, and a subscriber from before the rule gets the link once instead.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { wilson } from "../../src/analysis/stats";
import { completedPeriod } from "../../src/digests/model";
import { addDays } from "../../src/insights/window";
import { testServer } from "../helpers/app";
import { serverDb, writeResults, type ServerDb } from "../helpers/server-db";
import { startSmtpSink, type SmtpSink } from "../helpers/smtp";
import { createBrand, memberOf, serviceClient, signedUpOrg, type Org, type Server } from "../rest/helpers";

let sink: SmtpSink;
let server: Server;
let db: ServerDb;
let org: Org;
let brandId: string;
let member: { token: string };
let viewer: { token: string };
let ownerEmail: string;
const chat: { body: any; headers: Headers }[] = [];
let receiver: ReturnType<typeof Bun.serve>;

const week = completedPeriod("weekly", new Date());
const before = { from: addDays(week.window.from, -7), to: addDays(week.window.from, -1) };
/** What this test wrote: per window, (prompt, platform, mentioned) of each non-branded answer. */
const written: { day: string; platform: string; mentioned: boolean }[] = [];

const api = (path: string, token: string, init: RequestInit = {}) =>
  fetch(`${server.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...(init.headers ?? {}) } });
const choose = (token: string, brand: string, body: unknown) => api(`/api/brands/${brand}/digest`, token, { method: "PUT", body: JSON.stringify(body) });
const cron = async () => {
  const res = await fetch(`${server.url}/cron/digests`, { method: "POST", headers: { authorization: `Bearer ${server.secrets.cronSecret}` } });
  expect(res.status).toBe(200);
  return res.json();
};
/** A header as sent (mailparser turns List-* headers into objects). */
const header = (mail: { headerLines: readonly { key: string; line: string }[] }, name: string) => mail.headerLines.find((h) => h.key === name.toLowerCase())?.line.replace(/^[^:]+:\s*/, "") ?? null;
const mailsTo = (to: string, kind?: RegExp) => sink.received.filter((m) => m.to && !Array.isArray(m.to) && m.to.text === to && (!kind || kind.test(m.subject ?? "")));

beforeAll(async () => {
  sink = await startSmtpSink();
  receiver = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (request) => {
      chat.push({ body: await request.json(), headers: request.headers });
      return new Response("ok");
    },
  });
  server = await testServer({ SMTP_URL: sink.url, WEBHOOK_ALLOW_PRIVATE: "true", MAIL_RETRY_SCHEDULE: "200,200" });
  await server.runtime();
  db = await serverDb(server);
  org = await signedUpOrg(server, "Digest Co");
  ownerEmail = (await org.owner.auth.getUser()).data.user!.email!;
  member = await memberOf(server, org.id, "member");
  viewer = await memberOf(server, org.id, "viewer");
  brandId = (await createBrand(org.owner, org.id, "digest")).id;
  const set = (await org.owner.from("prompt_sets").insert({ brand_id: brandId, name: "S" }).select().single()).data!;
  const prompts = (await org.owner.from("prompts").insert(["best crm for startups?", "cheapest crm?"].map((text) => ({ prompt_set_id: set.id, brand_id: brandId, text }))).select()).data! as { id: string }[];
  // The week before: chatgpt never names the brand, perplexity half the time. The digest's week:
  // chatgpt names it 9 times in 10 (a significant move), perplexity as before.
  const rows = [];
  for (const [window, chatgptRate] of [[before, 0], [week.window, 0.9]] as const) {
    for (const [p, prompt] of prompts.entries()) {
      for (let i = 0; i < 20; i++) {
        const day = addDays(window.from, i % 7);
        for (const platform of ["chatgpt", "perplexity"]) {
          const mentioned = platform === "chatgpt" ? i < 20 * chatgptRate : (i + p) % 2 === 0;
          written.push({ day, platform, mentioned });
          rows.push({
            key: { id: crypto.randomUUID(), jobId: null, brandId, promptId: prompt.id, platform, model: "m", region: "", createdAt: `${day}T12:00:00.000Z` },
            values: { surface: "api", response: "x", mentioned: mentioned ? 1 : 0, mention_count: mentioned ? 1 : 0, mention_position: mentioned ? 1 : null, competitor_mentions: "[]", citations: "[]", citation_count: 0, brand_citation_count: 0, sources: "[]", source_count: 0, sentiment: null, sentiment_score: null, visibility_score: mentioned ? 70 : 0, search_queries: "[]", details: "{}" },
          });
        }
      }
    }
  }
  // A prompt lost on chatgpt three weeks before the digest's week and not run since: not news of the week.
  const stale = (await org.owner.from("prompts").insert({ prompt_set_id: set.id, brand_id: brandId, text: "old crm news?" }).select().single()).data! as { id: string };
  for (const [daysBefore, mentioned] of [[28, true], [21, false]] as const) {
    written.push({ day: addDays(week.window.from, -daysBefore), platform: "chatgpt", mentioned });
    rows.push({
      key: { id: crypto.randomUUID(), jobId: null, brandId, promptId: stale.id, platform: "chatgpt", model: "m", region: "", createdAt: `${addDays(week.window.from, -daysBefore)}T12:00:00.000Z` },
      values: { surface: "api", response: "x", mentioned: mentioned ? 1 : 0, mention_count: mentioned ? 1 : 0, mention_position: mentioned ? 1 : null, competitor_mentions: "[]", citations: "[]", citation_count: 0, brand_citation_count: 0, sources: "[]", source_count: 0, sentiment: null, sentiment_score: null, visibility_score: mentioned ? 70 : 0, search_queries: "[]", details: "{}" },
    });
  }
  await writeResults(server, rows);
  // Suggestions are the server's to write (the service key, as a run does).
  const suggested = await serviceClient(server).from("suggestions").insert([
    { brand_id: brandId, title: "Publish a pricing comparison", priority: "high", status: "new" },
    { brand_id: brandId, title: "Old idea", priority: "high", status: "dismissed" },
  ]);
  if (suggested.error) throw new Error(JSON.stringify(suggested.error));
});
afterAll(async () => {
  await db.close();
  await server.stop();
  await sink.stop();
  receiver.stop(true);
});

describe("choosing", () => {
  test("nobody gets a digest without choosing one: a due period with no subscriber mails nothing", async () => {
    const out = await cron();
    expect(out.mails).toBe(0);
    await Bun.sleep(200);
    expect(sink.received.filter((m) => /digest/i.test(m.subject ?? ""))).toHaveLength(0);
    // And no brand was marked done: choosing later still gets this week's digest.
    expect(await db.inspect("SELECT period FROM digest_runs WHERE brand_id = ?", brandId)).toEqual([]);
  });

  test("each member chooses for themselves; the list shows every brand with the caller's choice; bad input is a 400, another organization's brand a 404, an API key a 403", async () => {
    expect((await choose(org.ownerToken, brandId, { frequency: "weekly", alerts: true })).status).toBe(200);
    expect((await choose(member.token, brandId, { frequency: "monthly" })).status).toBe(200);
    const mine = await (await api("/api/digests", org.ownerToken)).json();
    expect(mine.mail_enabled).toBe(true);
    expect(mine.subscriptions).toEqual([{ brand_id: brandId, brand_name: "Brand digest", organization_id: org.id, organization_name: "Digest Co", frequency: "weekly", alerts: true }]);
    const viewerList = await (await api("/api/digests", viewer.token)).json();
    expect(viewerList.subscriptions.map((s: { frequency: string; alerts: boolean }) => [s.frequency, s.alerts])).toEqual([["none", false]]);
    for (const body of [{ frequency: "daily" }, { frequency: "weekly", alerts: "yes" }, [], null]) expect((await choose(viewer.token, brandId, body)).status).toBe(400);
    const other = await signedUpOrg(server, "Elsewhere");
    expect((await choose(other.ownerToken, brandId, { frequency: "weekly" })).status).toBe(404);
    expect((await choose(org.ownerToken, "not-a-uuid", { frequency: "weekly" })).status).toBe(400);
    expect((await fetch(`${server.url}/api/digests`)).status).toBe(401);
    const key = await (await api("/api/keys", org.ownerToken, { method: "POST", body: JSON.stringify({ name: "bot", organization_id: org.id, role: "member" }) })).json();
    expect((await choose(key.secret, brandId, { frequency: "weekly" })).status).toBe(403);
  });

  test("choosing mail sends a link to confirm the address first (once an hour); the link's page only asks, its button confirms; a forged or edited link is refused; nothing is mailed meanwhile", async () => {
    const confirmations = (to: string) => mailsTo(to, /^Confirm your address for answerwatch digests$/);
    const memberEmail = (await (await api("/api/digests", member.token)).json()).address.email as string;
    for (const to of [ownerEmail, memberEmail]) {
      const until = Date.now() + 10_000;
      while (!confirmations(to).length && Date.now() < until) await Bun.sleep(20);
      expect(confirmations(to)).toHaveLength(1);
    }
    const mine = await (await api("/api/digests", org.ownerToken)).json();
    expect(mine.address).toEqual({ email: ownerEmail, confirmed: false, confirmation_sent_at: expect.any(String) });
    // Choosing again, or asking for the link again, within the hour mails nothing more.
    const again = await (await choose(org.ownerToken, brandId, { frequency: "weekly", alerts: true })).json();
    expect([again.address_confirmed, again.confirmation_sent]).toEqual([false, false]);
    const resend = await api("/api/digests/confirmation", org.ownerToken, { method: "POST" });
    expect([resend.status, (await resend.json()).error.code]).toEqual([429, "rate_limited"]);
    await Bun.sleep(200);
    expect(confirmations(ownerEmail)).toHaveLength(1);

    const link = (to: string) => confirmations(to)[0]!.text!.match(/https?:\/\/\S+\/digests\/confirm\?token=\S+/)![0];
    const page = await fetch(link(ownerEmail));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<form method="post"');
    expect((await (await api("/api/digests", org.ownerToken)).json()).address.confirmed).toBe(false);
    // Another address put into the link breaks its signature.
    const edited = link(ownerEmail).replace(/(token=[^.]+\.[^.]+\.)[^.]+/, `$1${Buffer.from("victim@example.com").toString("base64url")}`);
    expect(edited).not.toBe(link(ownerEmail));
    expect((await fetch(edited, { method: "POST" })).status).toBe(400);
    expect((await fetch(`${server.url}/digests/confirm?token=x.y.z.w`, { method: "POST" })).status).toBe(400);
    for (const to of [ownerEmail, memberEmail]) {
      const done = await fetch(link(to), { method: "POST" });
      expect(done.status).toBe(200);
      expect(await done.text()).toContain(`will go to ${to}`);
    }
    expect((await (await api("/api/digests", org.ownerToken)).json()).address.confirmed).toBe(true);
    expect((await (await choose(org.ownerToken, brandId, { frequency: "weekly", alerts: true })).json()).address_confirmed).toBe(true);
    // A subscriber from before confirmations (the row as an older release left it): never asked.
    const viewerId = JSON.parse(Buffer.from(viewer.token.split(".")[1]!, "base64url").toString()).sub;
    await db.inspect("INSERT INTO digest_subscriptions (brand_id, user_id, frequency, alerts) VALUES (?, ?, 'weekly', ?)", brandId, viewerId, false);
  });

  test("a Slack-compatible endpoint asks for the weekly digest by name; an endpoint for every event does not get it", async () => {
    const url = `http://127.0.0.1:${receiver.port}/services/T0/B0/x`;
    const slack = await api("/api/webhooks", org.ownerToken, { method: "POST", body: JSON.stringify({ url, brand_id: brandId, events: ["digest.weekly"], format: "slack" }) });
    expect(slack.status).toBe(200);
    expect((await slack.json()).endpoint.format).toBe("slack");
    const all = await api("/api/webhooks", org.ownerToken, { method: "POST", body: JSON.stringify({ url: `http://127.0.0.1:${receiver.port}/all`, events: [] }) });
    expect(all.status).toBe(200);
    expect((await api("/api/webhooks", org.ownerToken, { method: "POST", body: JSON.stringify({ url, format: "teams-card" }) })).status).toBe(400);
  });
});

describe("the weekly digest", () => {
  let mail: Awaited<ReturnType<SmtpSink["waitFor"]>>[number];
  let overview: any;

  beforeAll(async () => {
    const out = await cron();
    expect(out.failed).toBe(0);
    const until = Date.now() + 10_000;
    while (!mailsTo(ownerEmail, /^Weekly digest/).length && Date.now() < until) await Bun.sleep(20);
    mail = mailsTo(ownerEmail, /^Weekly digest/)[0]!;
    const args = { p_brand_id: brandId, p_from: week.window.from, p_to: week.window.to, p_branded: false };
    overview = (await org.owner.rpc("insights_overview", args)).data;
  });

  test("goes once to the weekly subscriber only, with the period in its subject; a subscriber never asked to confirm gets the link instead, once", async () => {
    expect(mail.subject).toBe(`Weekly digest: Brand digest, ${week.window.from} – ${week.window.to}`);
    const viewerEmail = (await (await api("/api/digests", viewer.token)).json()).address.email as string;
    for (let i = 0; i < 200 && !mailsTo(viewerEmail).length; i++) await Bun.sleep(25);
    expect(mailsTo(viewerEmail).map((m) => m.subject)).toEqual(["Confirm your address for answerwatch digests"]);
    expect(mailsTo(ownerEmail, /^(Weekly|Monthly) digest/)).toHaveLength(1);
    const memberMail = sink.received.filter((m) => /^Weekly digest/.test(m.subject ?? ""));
    expect(memberMail).toHaveLength(1);
    expect(await db.inspect("SELECT period FROM digest_runs WHERE brand_id = ? ORDER BY period", brandId)).toEqual(expect.arrayContaining([{ period: week.period }]));
  });

  test("its headline is insights_overview's for the week (non-branded), and the counts of the rows written", async () => {
    const v = overview.visibility_rate;
    const rows = written.filter((r) => r.day >= week.window.from && r.day <= week.window.to);
    const x = rows.filter((r) => r.mentioned).length;
    expect(v.n).toBe(rows.length);
    expect(v.value).toBeCloseTo(x / rows.length, 12);
    const ci = wilson(x, rows.length);
    const pct = (n: number) => `${(n * 100).toFixed(1)} %`;
    expect(mail.text).toContain(`Non-branded visibility ${pct(x / rows.length)} (95 % CI ${pct(ci.ci_low!)} – ${pct(ci.ci_high!)}, n = ${rows.length})`);
    const pts = (d: number) => `${d >= 0 ? "+" : "−"}${Math.abs(d * 100).toFixed(1)} pts`;
    expect(mail.text).toContain(`change ${pts(v.change.delta)} (95 % CI ${pts(v.change.ci_low)} to ${pts(v.change.ci_high)}), up`);
  });

  test("its moves are the overview's significant ones, and chatgpt's is among them; perplexity's noise is not", async () => {
    const chatgpt = overview.by_platform.find((r: any) => r.platform === "chatgpt").visibility_rate;
    expect(chatgpt.change.verdict).toBe("up");
    const pts = (d: number) => `${d >= 0 ? "+" : "−"}${Math.abs(d * 100).toFixed(1)} pts`;
    expect(mail.text).toContain(`- ▲ chatgpt: ${pts(chatgpt.change.delta)} (95 % CI ${pts(chatgpt.change.ci_low)} to ${pts(chatgpt.change.ci_high)})`);
    expect(overview.by_platform.find((r: any) => r.platform === "perplexity").visibility_rate.change.verdict).not.toMatch(/^(up|down)$/);
    expect(mail.text).not.toContain("▲ perplexity");
    expect(mail.text).not.toContain("▼ perplexity");
  });

  test("its prompts gained and lost are insights_prompts' run states, and its suggestions the open ones", async () => {
    const prompts = (await org.owner.rpc("insights_prompts", { p_brand_id: brandId, p_from: week.window.from, p_to: week.window.to })).data as any[];
    // Only transitions whose latest run was in the week: one from weeks before is not this week's news.
    const inWeek = (r: any) => r.latest_at >= `${week.window.from}T00:00:00.000Z`;
    const gained = prompts.filter((p) => p.runs.some((r: any) => r.state === "gained" && inWeek(r)));
    const lost = prompts.filter((p) => p.runs.some((r: any) => r.state === "lost" && inWeek(r)));
    // A section is shown when it has something to list.
    for (const [title, list] of [["Prompts gained", gained], ["Prompts lost", lost]] as const) {
      if (list.length) expect(mail.text).toContain(`${title} (${list.length})`);
      else expect(mail.text).not.toContain(`${title} (`);
      for (const p of list.slice(0, 10)) expect(mail.text).toContain(`“${p.text}”`);
    }
    expect(mail.text).toContain("- [high] Publish a pricing comparison");
    expect(mail.text).not.toContain("Old idea");
    // Lost, but three weeks ago: insights_prompts says so, the week's digest does not list it.
    expect(prompts.find((p) => p.text === "old crm news?")?.runs.map((r: any) => r.state)).toEqual(["lost"]);
    expect(mail.text).not.toContain("“old crm news?”");
  });

  test("carries a one-click unsubscribe (List-Unsubscribe + List-Unsubscribe-Post) and the client report link", async () => {
    const unsubscribe = String(header(mail, "List-Unsubscribe"));
    expect(unsubscribe).toMatch(new RegExp(`^<${server.url.replace(/[.]/g, "\\.")}/digests/unsubscribe\\?token=[0-9a-f-]{36}\\.[\\w-]+>$`));
    expect(header(mail, "List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");
    expect(mail.text).toContain(`Client report: ${server.url}/api/brands/${brandId}/report?from=${week.window.from}&to=${week.window.to}`);
    expect(mail.html).toContain("Unsubscribe</a>");
    // The client report of the same window rides along as an HTML file.
    expect(mail.attachments.map((a) => [a.filename, a.contentType])).toEqual([[expect.stringMatching(new RegExp(`-report-${week.window.from}-${week.window.to}\\.html$`)), "text/html"]]);
    const report = mail.attachments[0]!.content.toString("utf8");
    expect(report).toMatch(/^<!doctype html>/i);
    expect(report).toContain("Brand digest");
    expect(report).not.toMatch(/<script/i);
  });

  test("the Slack-compatible endpoint receives the same digest as {text}; the every-event endpoint nothing", async () => {
    const until = Date.now() + 10_000;
    while (!chat.some((c) => typeof c.body.text === "string") && Date.now() < until) await Bun.sleep(20);
    const slack = chat.filter((c) => typeof c.body.text === "string");
    expect(slack).toHaveLength(1);
    expect(Object.keys(slack[0]!.body)).toEqual(["text"]);
    expect(slack[0]!.body.text).toContain(`*Weekly digest: Brand digest, ${week.window.from} – ${week.window.to}*`);
    expect(slack[0]!.body.text).toContain("• ▲ chatgpt:");
    expect(slack[0]!.body.text).toContain(`<${server.url}/b/${brandId}?from=${week.window.from}&to=${week.window.to}|Open the overview>`);
    expect(chat.filter((c) => c.body.type === "digest.weekly")).toHaveLength(0);
  });

  test("asking again mails and posts nothing more: no digest, and no second link to the subscriber asked but not confirmed", async () => {
    const out = await cron();
    expect(out.digests).toBe(0);
    expect(out.mails).toBe(0);
    await Bun.sleep(300);
    expect(mailsTo(ownerEmail, /^Weekly digest/)).toHaveLength(1);
    const viewerEmail = (await (await api("/api/digests", viewer.token)).json()).address.email as string;
    expect(mailsTo(viewerEmail)).toHaveLength(1);
    expect(chat.filter((c) => typeof c.body.text === "string")).toHaveLength(1);
  });

  test("the monthly subscriber got the last month's digest, equal to the overview of that month", async () => {
    const month = completedPeriod("monthly", new Date());
    const list = await (await api("/api/digests", member.token)).json();
    expect(list.subscriptions[0].frequency).toBe("monthly");
    const monthly = sink.received.filter((m) => /^Monthly digest/.test(m.subject ?? ""));
    expect(monthly).toHaveLength(1);
    expect(monthly[0]!.subject).toBe(`Monthly digest: Brand digest, ${month.window.from} – ${month.window.to}`);
    const o = (await org.owner.rpc("insights_overview", { p_brand_id: brandId, p_from: month.window.from, p_to: month.window.to, p_branded: false })).data;
    const rows = written.filter((r) => r.day >= month.window.from && r.day <= month.window.to);
    expect(o.visibility_rate.n).toBe(rows.length);
    if (rows.length) expect(monthly[0]!.text).toContain(`n = ${rows.length})`);
    else expect(monthly[0]!.text).toContain(`No answers to non-branded prompts between ${month.window.from} and ${month.window.to}.`);
  });
});

describe("alerts and unsubscribing", () => {
  test("a visibility.changed event is mailed once to the member who asked for alerts, not to the others", async () => {
    const alert = { platform: "chatgpt", window: week.window, previous_window: before, current: { value: 0.9, n: 40, ci_low: 0.77, ci_high: 0.96 }, previous: { value: 0, n: 40, ci_low: 0, ci_high: 0.09 }, change: { delta: 0.9, ci_low: 0.75, ci_high: 0.96, verdict: "up", model_changed: false }, change_points: 90 };
    await db.inspect(`INSERT INTO webhook_events (organization_id, brand_id, type, payload, created_at) VALUES (?, ?, 'visibility.changed', ?, ?) RETURNING id`, org.id, brandId, JSON.stringify(alert), new Date().toISOString());
    await cron();
    await cron();
    const until = Date.now() + 10_000;
    while (!mailsTo(ownerEmail, /visibility on chatgpt/).length && Date.now() < until) await Bun.sleep(20);
    await Bun.sleep(200);
    const alerts = sink.received.filter((m) => /visibility on chatgpt/.test(m.subject ?? ""));
    expect(alerts.map((m) => (m.to as { text: string }).text)).toEqual([ownerEmail]);
    expect(alerts[0]!.subject).toBe("Brand digest: visibility on chatgpt up +90.0 pts");
    expect(alerts[0]!.text).toContain("moved +90.0 pts (95 % CI +75.0 pts to +96.0 pts): 90.0 % (95 % CI 77.0 % – 96.0 %, n = 40)");
    expect(header(alerts[0]!, "List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");
  });

  test("the unsubscribe link: GET only asks; the one-click POST turns digests and alerts off; a forged token is refused", async () => {
    const mail = mailsTo(ownerEmail, /^Weekly digest/)[0]!;
    const link = String(header(mail, "List-Unsubscribe")).slice(1, -1);
    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<form method="post"');
    expect((await (await api("/api/digests", org.ownerToken)).json()).subscriptions[0].frequency).toBe("weekly");
    const done = await fetch(link, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "List-Unsubscribe=One-Click" });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain(`${ownerEmail} will no longer receive digests or alerts about Brand digest`);
    expect((await (await api("/api/digests", org.ownerToken)).json()).subscriptions[0]).toMatchObject({ frequency: "none", alerts: false });
    // The member's own choice is untouched.
    expect((await (await api("/api/digests", member.token)).json()).subscriptions[0].frequency).toBe("monthly");
    const forged = link.replace(/\.[\w-]+$/, ".AAAA");
    expect((await fetch(forged, { method: "POST" })).status).toBe(400);
    expect((await fetch(`${server.url}/digests/unsubscribe?token=${crypto.randomUUID()}`)).status).toBe(400);
  });
});

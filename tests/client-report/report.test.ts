// backends: sqlite, postgres
// Client reports (issue #31): GET /api/brands/:brandId/report → one self-contained HTML document.
// Its figures (read from their data-* attributes) equal what the insights RPCs answer the owner for
// the same window through supabase-js, and the headline visibility and n equal what this test counts
// in the raw rows it wrote; the document validates (html-validate, recommended rules), has no script
// and no URL a browser could fetch, and is served under a policy that forbids any request. Who may
// read it: members of the brand's organization (any role, session or API key) and the brand's share
// links; another organization's brand is a 404. The organization's logo is a data: URL or nothing.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { HtmlValidate } from "html-validate";
import { wilson } from "../../src/analysis/stats";
import { testServer } from "../helpers/app";
import { serverDb } from "../helpers/server-db";
import { memberOf, signedUpOrg, type Org, type Server } from "../rest/helpers";
import { BRAND_NAME, dayOffset, PNG_LOGO, seedReportBrand, type SeededBrand } from "./seed";

let server: Server;
let org: Org;
let stranger: Org;
let seeded: SeededBrand;
let otherBrand: SeededBrand;
const from = dayOffset(-29);
const to = dayOffset(0);

beforeAll(async () => {
  server = await testServer();
  org = await signedUpOrg(server, "Agency");
  stranger = await signedUpOrg(server, "Stranger");
  seeded = await seedReportBrand(server, org);
  otherBrand = await seedReportBrand(server, org, { seed: 7, answers: 30 });
}, 60_000);
afterAll(async () => {
  await (await serverDb(server)).close();
  server.stop();
});

const reportUrl = (brandId: string, query = `?from=${from}&to=${to}`) => `${server.url}/api/brands/${brandId}/report${query}`;
const get = (url: string, token?: string) => fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });

type Attrs = Record<string, string>;

/** Every element carrying `data-<key>`, as its data-* attributes (in document order). */
async function elementsWith(html: string, key: string): Promise<Attrs[]> {
  const found: Attrs[] = [];
  await new HTMLRewriter()
    .on(`[data-${key}]`, {
      element(el) {
        const attrs: Attrs = {};
        for (const [name, value] of el.attributes) if (name.startsWith("data-")) attrs[name.slice(5)] = value;
        found.push(attrs);
      },
    })
    .transform(new Response(html))
    .text();
  return found;
}

/** An attribute as the value it stands for: "" is null, anything else a number. */
const n = (value: string | undefined) => (value === undefined ? undefined : value === "" ? null : Number(value));

async function rpc<T>(name: string, args: Record<string, unknown> = {}): Promise<T> {
  const { data, error } = await org.owner.rpc(name, { p_brand_id: seeded.brandId, p_from: from, p_to: to, p_branded: false, ...args });
  expect(error).toBeNull();
  return data as T;
}

let html: string;
let response: Response;

test("the report is HTML with a policy that forbids any request, named after the brand and the window", async () => {
  response = await get(reportUrl(seeded.brandId), org.ownerToken);
  html = await response.text();
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
  expect(response.headers.get("content-security-policy")).toBe("default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
  expect(response.headers.get("content-disposition")).toBe(`inline; filename="${seeded.slug}-report-${from}-${to}.html"`);
  expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  expect(response.headers.get("cache-control")).toBe("no-store");
  const download = await get(reportUrl(seeded.brandId, `?from=${from}&to=${to}&download=1`), org.ownerToken);
  expect(download.headers.get("content-disposition")).toBe(`attachment; filename="${seeded.slug}-report-${from}-${to}.html"`);
});

test("no script, no URL a browser could fetch, every text escaped", async () => {
  expect(html).toStartWith("<!DOCTYPE html>");
  expect(html).not.toMatch(/<script/i);
  expect(html).not.toMatch(/\son[a-z]+\s*=/i);
  const urls = [...html.matchAll(/\b(?:src|href|xlink:href|action|poster|srcset)\s*=\s*"([^"]*)"/gi), ...html.matchAll(/url\(\s*['"]?([^'")]*)/gi)].map((m) => m[1]!);
  expect(urls.filter((u) => !u.startsWith("data:"))).toEqual([]);
  expect(html).not.toMatch(/https?:\/\//i);
  expect(html).not.toMatch(/@import/i);
  // The brand's name and a prompt with markup in them are text.
  expect(html).toContain("Lumenly &#38; &#34;Co&#34; &#60;Analytics&#62;");
  expect(html).not.toContain(BRAND_NAME);
  expect(html).toContain("&#60;script&#62;alert(1)&#60;/script&#62;");
});

/** What html-validate's recommended rules find wrong with a document (nothing, it is hoped). */
async function htmlProblems(document: string): Promise<string[]> {
  const report = await new HtmlValidate({ extends: ["html-validate:recommended"] }).validateString(document);
  return report.results.flatMap((r) => r.messages.map((m) => `${m.line}:${m.column} ${m.ruleId}: ${m.message}`));
}

test("the document validates (html-validate, recommended rules)", async () => {
  expect(await htmlProblems(html)).toEqual([]);
});

test("the headline visibility and its n are the raw rows' (non-branded prompts, inside the window), with the Wilson interval", async () => {
  const inside = seeded.rows.filter((r) => r.promptId !== seeded.brandedPromptId && r.createdAt.slice(0, 10) >= from && r.createdAt.slice(0, 10) <= to);
  const mentioned = inside.filter((r) => r.mentioned).length;
  const [kpi] = (await elementsWith(html, "kpi")).filter((k) => k.kpi === "visibility_rate");
  expect(inside.length).toBeGreaterThan(50);
  const expected = wilson(mentioned, inside.length);
  expect({ value: n(kpi!.value), n: n(kpi!.n) }).toEqual({ value: mentioned / inside.length, n: inside.length });
  expect(n(kpi!["ci-low"])).toBeCloseTo(expected.ci_low!, 12);
  expect(n(kpi!["ci-high"])).toBeCloseTo(expected.ci_high!, 12);
  expect(n((await elementsWith(html, "answers"))[0]!.answers)).toBe(inside.length);
});

test("the KPIs and the per-platform results equal insights_overview's", async () => {
  const overview = await rpc<any>("insights_overview");
  const kpis = Object.fromEntries((await elementsWith(html, "kpi")).map((k) => [k.kpi, k]));
  for (const key of ["visibility_rate", "citation_share", "brand_cited_rate"]) {
    const rate = overview[key];
    const k = kpis[key]!;
    expect({ key, value: n(k.value), ci_low: n(k["ci-low"]), ci_high: n(k["ci-high"]), n: n(k.n), delta: n(k.delta), change_low: n(k["change-ci-low"]), change_high: n(k["change-ci-high"]), verdict: k.verdict, n_current: n(k["n-current"]), n_previous: n(k["n-previous"]) }).toEqual({
      key, value: rate.value, ci_low: rate.ci_low, ci_high: rate.ci_high, n: rate.n, delta: rate.change.delta, change_low: rate.change.ci_low, change_high: rate.change.ci_high, verdict: rate.change.verdict, n_current: rate.change.n_current, n_previous: rate.change.n_previous,
    });
  }
  const sov = kpis.share_of_voice!;
  expect({ value: n(sov.value), n: n(sov.n), brand: n(sov["brand-mentions"]), total: n(sov["total-mentions"]), delta: n(sov.delta) }).toEqual({ value: overview.share_of_voice.value, n: overview.share_of_voice.n, brand: overview.share_of_voice.brand_mentions, total: overview.share_of_voice.total_mentions, delta: overview.share_of_voice.change.delta });
  expect({ value: n(kpis.avg_position!.value), n: n(kpis.avg_position!.n) }).toEqual({ value: overview.avg_position.value, n: overview.avg_position.n });
  const s = kpis.sentiment!;
  expect({ value: n(s.value), n: n(s.n), positive: n(s.positive), neutral: n(s.neutral), negative: n(s.negative) }).toEqual({ value: overview.sentiment.value, n: overview.sentiment.n, positive: overview.sentiment.positive, neutral: overview.sentiment.neutral, negative: overview.sentiment.negative });

  const platforms = await elementsWith(html, "platform");
  expect(platforms.map((p) => p.platform)).toEqual(overview.by_platform.map((p: any) => p.platform));
  for (const [i, p] of platforms.entries()) {
    const rate = overview.by_platform[i].visibility_rate;
    expect({ platform: p.platform, value: n(p.value), ci_low: n(p["ci-low"]), ci_high: n(p["ci-high"]), n: n(p.n), delta: n(p.delta), verdict: p.verdict }).toEqual({ platform: overview.by_platform[i].platform, value: rate.value, ci_low: rate.ci_low, ci_high: rate.ci_high, n: rate.n, delta: rate.change.delta, verdict: rate.change.verdict });
  }
  // The moves beyond noise are the overview's (chatgpt was seeded to rise).
  const moves = await elementsWith(html, "move");
  const significant = overview.by_platform.filter((p: any) => ["up", "down"].includes(p.visibility_rate.change.verdict)).map((p: any) => p.platform);
  expect(significant).toContain("chatgpt");
  for (const platform of significant) expect(moves.map((m) => m.move)).toContain(platform);
});

test("competitors, top sources and prompts equal insights_competitors, insights_citation_domains and insights_prompts", async () => {
  const competitors = await rpc<any[]>("insights_competitors");
  const shown = await elementsWith(html, "entity");
  expect(shown.map((c) => c.entity).sort()).toEqual(competitors.map((c) => c.entity_id).sort());
  for (const c of shown) {
    const r = competitors.find((x) => x.entity_id === c.entity)!;
    expect({ id: c.entity, visibility: n(c.visibility), ci_low: n(c["ci-low"]), ci_high: n(c["ci-high"]), n: n(c.n), mentions: n(c.mentions), sov: n(c.sov), position: n(c.position) }).toEqual({ id: r.entity_id, visibility: r.visibility_rate, ci_low: r.ci_low, ci_high: r.ci_high, n: r.n, mentions: r.mentions, sov: r.share_of_voice, position: r.avg_position });
  }

  const domains = await rpc<any[]>("insights_citation_domains");
  expect(domains.length).toBeGreaterThan(10);
  const sources = await elementsWith(html, "domain");
  expect(sources.map((s) => ({ domain: s.domain, class: s.class, citations: n(s.citations), answers: n(s.answers), share: n(s.share), brand_mentioned: n(s["brand-mentioned"]) }))).toEqual(
    domains.slice(0, 10).map((d) => ({ domain: d.domain, class: d.class, citations: d.citations, answers: d.answers, share: d.share, brand_mentioned: d.brand_mentioned_rate })),
  );

  const prompts = await rpc<any[]>("insights_prompts");
  const rows = await elementsWith(html, "prompt");
  expect(rows.map((r) => r.prompt).sort()).toEqual(prompts.map((p) => p.prompt_id).sort());
  expect(rows.map((r) => r.prompt)).not.toContain(seeded.brandedPromptId);
  for (const r of rows) {
    const p = prompts.find((x) => x.prompt_id === r.prompt)!;
    expect({ id: r.prompt, visibility: n(r.visibility), ci_low: n(r["ci-low"]), ci_high: n(r["ci-high"]), n: n(r.n), mentioned: n(r.mentioned), position: n(r.position) }).toEqual({ id: p.prompt_id, visibility: p.visibility_rate, ci_low: p.ci_low, ci_high: p.ci_high, n: p.answers, mentioned: p.mentioned, position: p.avg_position });
  }
});

test("open suggestions only, most urgent first; the organization's name at the top", async () => {
  const suggestions = await elementsWith(html, "suggestion");
  expect(suggestions.map((s) => [s.priority, s.status])).toEqual([["high", "new"], ["medium", "accepted"], ["low", "in_progress"]]);
  expect(html).not.toContain("Dismissed idea");
  expect(html).not.toContain("Done already");
  const [organization] = await elementsWith(html, "organization");
  const name = ((await org.owner.from("organizations").select("name").eq("id", org.id).single()).data as { name: string }).name;
  expect(organization!.organization).toBe(name);
  // Without a logo the report says who made it.
  expect(html).not.toContain("<img");
  expect(html).toContain("by answerwatch");
});

test("the window defaults to the last 30 days; bad dates and windows are 400s in the /api shape", async () => {
  const byDefault = await get(reportUrl(seeded.brandId, ""), org.ownerToken);
  expect(byDefault.status).toBe(200);
  expect((await elementsWith(await byDefault.text(), "from"))[0]).toMatchObject({ from, to });
  for (const [query, code] of [
    ["?from=2026-02-30", "invalid_date"],
    ["?to=yesterday", "invalid_date"],
    ["?from=1999-12-31", "invalid_date"],
    [`?from=${to}&to=${from}`, "invalid_window"],
    ["?from=2000-01-01&to=2020-01-01", "invalid_window"],
  ] as const) {
    const res = await get(reportUrl(seeded.brandId, query), org.ownerToken);
    expect([query, res.status, await res.json()]).toEqual([query, 400, { success: false, error: expect.objectContaining({ code }) }]);
  }
  const malformed = await get(reportUrl("not-a-uuid"), org.ownerToken);
  expect([malformed.status, (await malformed.json()).error.code]).toEqual([400, "invalid_id"]);
});

test("who may read it: members of any role and their API keys; anonymous 401, another organization 404, an unknown brand 404", async () => {
  const anonymous = await get(reportUrl(seeded.brandId));
  expect([anonymous.status, (await anonymous.json()).success]).toEqual([401, false]);
  const foreign = await get(reportUrl(seeded.brandId), stranger.ownerToken);
  expect([foreign.status, await foreign.json()]).toEqual([404, { success: false, error: expect.objectContaining({ code: "brand_not_found" }) }]);
  expect((await get(reportUrl(crypto.randomUUID()), org.ownerToken)).status).toBe(404);
  const viewer = await memberOf(server, org.id, "viewer");
  const asViewer = await get(reportUrl(seeded.brandId), viewer.token);
  expect(asViewer.status).toBe(200);
  // The same document whoever of the organization asks (the generation time aside).
  const withoutTime = (text: string) => text.replace(/Generated [^<]*UTC/, "");
  expect(withoutTime(await asViewer.text())).toBe(withoutTime(html));
  const key = await (await fetch(`${server.url}/api/keys`, { method: "POST", headers: { authorization: `Bearer ${org.ownerToken}`, "content-type": "application/json" }, body: JSON.stringify({ name: "reports", organization_id: org.id, role: "viewer" }) })).json();
  expect((await get(reportUrl(seeded.brandId), key.secret)).status).toBe(200);
  const strangerKey = await (await fetch(`${server.url}/api/keys`, { method: "POST", headers: { authorization: `Bearer ${stranger.ownerToken}`, "content-type": "application/json" }, body: JSON.stringify({ name: "nosy", organization_id: stranger.id, role: "owner" }) })).json();
  expect((await get(reportUrl(seeded.brandId), strangerKey.secret)).status).toBe(404);
});

test("the web app's door: a form POST carrying the access token opens it in a tab (no token in a URL); a bad token is a 401", async () => {
  const post = (fields: Record<string, string>) => fetch(reportUrl(seeded.brandId, ""), { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields) });
  const ok = await post({ access_token: org.ownerToken, from, to });
  expect(ok.status).toBe(200);
  expect(ok.headers.get("content-security-policy")).toStartWith("default-src 'none'");
  expect((await elementsWith(await ok.text(), "kpi")).find((k) => k.kpi === "visibility_rate")).toEqual((await elementsWith(html, "kpi")).find((k) => k.kpi === "visibility_rate")!);
  expect((await post({ access_token: "nope", from, to })).status).toBe(401);
  // What no header can hold (a line break, NUL, non-ASCII) is no token either: 401, not a 500.
  for (const bad of ["a\nb", "a\u0000b", "tök€n", "x".repeat(9000)]) expect((await post({ access_token: bad, from, to })).status).toBe(401);
  expect((await post({ from, to })).status).toBe(401);
  expect((await post({ access_token: stranger.ownerToken })).status).toBe(404);
  expect((await post({ access_token: org.ownerToken, from: "2026-13-01" })).status).toBe(400);
});

test("a share link opens its own brand's report only; a revoked link is a 404", async () => {
  const link = await (await fetch(`${server.url}/api/share-links`, { method: "POST", headers: { authorization: `Bearer ${org.ownerToken}`, "content-type": "application/json" }, body: JSON.stringify({ brand_id: otherBrand.brandId }) })).json();
  const shared = await fetch(`${link.url}/report?from=${from}&to=${to}&brandId=${seeded.brandId}&p_brand_id=${seeded.brandId}`);
  expect(shared.status).toBe(200);
  expect(shared.headers.get("content-security-policy")).toBe("default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors *");
  const text = await shared.text();
  expect((await elementsWith(text, "brand"))[0]!.brand).toBe(otherBrand.brandId);
  const sharedKpi = (await elementsWith(text, "kpi")).find((k) => k.kpi === "visibility_rate")!;
  const { data } = await org.owner.rpc("insights_overview", { p_brand_id: otherBrand.brandId, p_from: from, p_to: to, p_branded: false });
  expect([n(sharedKpi.value), n(sharedKpi.n)]).toEqual([(data as any).visibility_rate.value, (data as any).visibility_rate.n]);
  expect((await fetch(`${link.url}/report?from=nope`)).status).toBe(400);
  // The link's token is no bearer for /api.
  expect((await get(reportUrl(seeded.brandId), link.url.split("/share/")[1])).status).toBe(401);
  await fetch(`${server.url}/api/share-links/${link.link.id}`, { method: "DELETE", headers: { authorization: `Bearer ${org.ownerToken}` } });
  expect((await fetch(`${link.url}/report`)).status).toBe(404);
  // The link's pages are still the web app's.
  const other = await fetch(`${server.url}/share/aws_unknown/report`);
  expect(other.status).toBe(404);
});

test("the organization's logo: a data: URL set by an owner shows at the top, anything else is refused with the REST error", async () => {
  const refused = await org.owner.from("organizations").update({ logo: "https://evil.example/logo.png" }).eq("id", org.id);
  expect(refused.error?.code).toBe("23514");
  expect(refused.error?.message).toContain("organizations_logo_data_url");
  for (const bad of ["data:image/gif;base64,R0lGODlhAQABAAAAACw=", "data:text/html;base64,PHNjcmlwdD4=", "data:image/png;base64,not base64!", `data:image/png;base64,${"A".repeat(256 * 1024)}`, "javascript:alert(1)"])
    expect((await org.owner.from("organizations").update({ logo: bad }).eq("id", org.id)).error?.code).toBe("23514");
  const set = await org.owner.from("organizations").update({ logo: PNG_LOGO }).eq("id", org.id).select("logo").single();
  expect(set.error).toBeNull();
  expect((set.data as { logo: string }).logo).toBe(PNG_LOGO);
  const text = await (await get(reportUrl(seeded.brandId), org.ownerToken)).text();
  expect(text).toContain(`<img src="${PNG_LOGO}"`);
  expect(await htmlProblems(text)).toEqual([]);
  // White-label: the logo stands for whoever made the report.
  expect(text).not.toContain("answerwatch");
  const cleared = await org.owner.from("organizations").update({ logo: null }).eq("id", org.id);
  expect(cleared.error).toBeNull();
  expect(await (await get(reportUrl(seeded.brandId), org.ownerToken)).text()).not.toContain("<img");
});


test("a brand without answers: every section says so, and the document still validates", async () => {
  const empty = (await org.owner.from("brands").insert({ organization_id: org.id, name: "Quiet", slug: `quiet-${crypto.randomUUID().slice(0, 6)}` }).select().single()).data as { id: string };
  const res = await get(reportUrl(empty.id), org.ownerToken);
  expect(res.status).toBe(200);
  const text = await res.text();
  expect(await htmlProblems(text)).toEqual([]);
  expect((await elementsWith(text, "kpi")).find((k) => k.kpi === "visibility_rate")).toMatchObject({ value: "", n: "0", verdict: "insufficient_data" });
  for (const words of ["No answers in this window.", "No competitors are tracked for this brand.", "No answer cited a source in this window.", "No non-branded prompts had answers in this window.", "No open suggestions."]) expect(text).toContain(words);
});

test("a logo that is no data: image URL (written around the REST checks) is left out of the report", async () => {
  const db = await serverDb(server);
  for (const logo of ["https://evil.example/logo.png", "data:text/html;base64,PHNjcmlwdD4=", `data:image/png;base64,AAAA" onerror="alert(1)`]) {
    await db.inspect("UPDATE organizations SET logo = ? WHERE id = ?", logo, org.id);
    const text = await (await get(reportUrl(seeded.brandId), org.ownerToken)).text();
    expect(text).not.toContain("<img");
    expect(text).not.toContain("evil.example");
    expect(text).toContain("by answerwatch");
  }
  await db.inspect("UPDATE organizations SET logo = NULL WHERE id = ?", org.id);
});

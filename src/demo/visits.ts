// Four weeks of sample AI-referred visits and AI-crawler requests for the demo brand, so the AI
// traffic and AI crawlers pages have something to show. Written through the product's doors: the
// visits through /rest/v1 with the service key (rollups follow by trigger), the crawler requests
// through POST /api/brands/:id/crawler-logs as a CDN would send them (classified and verified by the
// product). Deterministic: the same counts every run. All of it is invented, like the answers.
const DAY_MS = 86_400_000;

/** A small seeded generator (mulberry32): the demo's numbers are the same on every run. */
function seeded(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ASSISTANTS: [platform: string, referrer: string, perDay: number][] = [
  ["chatgpt", "chatgpt.com", 9],
  ["perplexity", "www.perplexity.ai", 5],
  ["gemini", "gemini.google.com", 3],
  ["copilot", "copilot.microsoft.com", 2],
  ["claude", "claude.ai", 1],
];
const PAGES = ["/", "/pricing", "/blog/choosing-an-analytics-tool", "/docs/getting-started", "/compare/quantora", "/integrations"];

/** [user agent, address, requests a day]: verified crawlers use addresses their operators publish. */
const CRAWLERS: [string, string, number][] = [
  ["Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)", "20.171.206.17", 14],
  ["Mozilla/5.0 (compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot)", "13.66.216.180", 6],
  ["Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)", "16.58.26.69", 8],
  ["Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)", "3.211.124.183", 5],
  ["CCBot/2.0 (https://commoncrawl.org/faq/)", "2600:1f28:365:8000::1", 3],
  ["Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "2001:4860:4801:10::7", 10],
  // Claims to be GPTBot from an address OpenAI does not publish: the product calls it spoofed.
  ["Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)", "203.0.113.9", 2],
  ["Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36", "198.51.100.20", 12],
];
const CRAWLED = ["/", "/pricing", "/docs/getting-started", "/blog/choosing-an-analytics-tool", "/robots.txt", "/sitemap.xml", "/old-page", "/account"];
const statusOf = (path: string) => (path === "/old-page" ? 404 : path === "/account" ? 403 : 200);

export async function seedVisits(input: { url: string; serviceKey: string; accessToken: string; brandId: string; domain: string; now: Date; days?: number }): Promise<{ visits: number; crawlerRequests: number }> {
  const days = input.days ?? 28;
  const random = seeded(20261126);
  const today = Date.UTC(input.now.getUTCFullYear(), input.now.getUTCMonth(), input.now.getUTCDate());
  const visits: Record<string, unknown>[] = [];
  const requests: Record<string, unknown>[] = [];
  for (let d = days - 1; d >= 0; d--) {
    const day = today - d * DAY_MS;
    // Growing over the four weeks, as a brand that works on its AI visibility would hope.
    const growth = 0.6 + (0.8 * (days - d)) / days;
    // Today only up to a minute ago: nothing from the future.
    const span = Math.min(DAY_MS, input.now.getTime() - 60_000 - day);
    if (span <= 0) continue;
    for (const [platform, referrer, perDay] of ASSISTANTS) {
      const n = Math.round(perDay * growth * (0.6 + random() * 0.8));
      for (let i = 0; i < n; i++) {
        const path = PAGES[Math.floor(random() * PAGES.length)]!;
        const at = new Date(day + Math.floor(random() * span));
        visits.push({ brand_id: input.brandId, url: `https://${input.domain}${path}`, path, referrer_host: referrer, source_platform: platform, visitor_hash: Math.floor(random() * 2 ** 48).toString(16), user_agent_family: "Chrome", created_at: at.toISOString() });
      }
    }
    for (const [userAgent, ip, perDay] of CRAWLERS) {
      const n = Math.round(perDay * (0.5 + random()));
      for (let i = 0; i < n; i++) {
        const path = CRAWLED[Math.floor(random() * CRAWLED.length)]!;
        const at = new Date(day + Math.floor(random() * span));
        requests.push({ timestamp: at.toISOString(), method: "GET", host: input.domain, path, status: statusOf(path), ip, user_agent: userAgent, bytes: 2048 + Math.floor(random() * 30_000) });
      }
    }
  }
  const rest = await fetch(`${input.url}/rest/v1/ai_traffic_logs`, { method: "POST", headers: { apikey: input.serviceKey, authorization: `Bearer ${input.serviceKey}`, "content-type": "application/json", prefer: "return=minimal" }, body: JSON.stringify(visits) });
  if (!rest.ok) throw new Error(`writing the sample visits failed: HTTP ${rest.status} ${await rest.text()}`);
  // The endpoint takes batches of up to 1,000 records; a record repeating another (same second, address, path) counts once.
  let accepted = 0;
  for (let i = 0; i < requests.length; i += 1000) {
    const res = await fetch(`${input.url}/api/brands/${input.brandId}/crawler-logs`, { method: "POST", headers: { authorization: `Bearer ${input.accessToken}`, "content-type": "application/json" }, body: JSON.stringify(requests.slice(i, i + 1000)) });
    const body = (await res.json()) as { success: boolean; accepted?: number; error?: { message: string } };
    if (!body.success) throw new Error(`sending the sample crawler logs failed: ${body.error?.message}`);
    accepted += body.accepted ?? 0;
  }
  return { visits: visits.length, crawlerRequests: accepted };
}

// The MCP tools (issue #20): each one a door onto a public interface the app and integrators use —
// the insights RPCs, /rest/v1 tables and /api — called as the same user, so row-level security,
// roles and error messages are the server's own, and numbers equal the RPCs'.
import { z } from "zod";
import { PLATFORM_IDS } from "../engines/types";
import { MAX_PROMPT_CHARS } from "../common/limits";

/** How a tool reaches the server: as the caller, through the app's own request handling. */
export interface ToolContext {
  /** The caller, as the bearer token says. */
  user: { id: string; email: string };
  rpc(name: string, args: Record<string, unknown>): Promise<unknown>;
  rest(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<unknown>;
  api(method: string, path: string, body?: unknown): Promise<unknown>;
}

export interface ToolSpec {
  name: string;
  description: string;
  input: z.ZodRawShape;
  /** Changes data: refused to read-only callers by the server itself (role checks, RLS). */
  write?: boolean;
  run(ctx: ToolContext, args: Record<string, any>): Promise<unknown>;
}

const uuid = z.string().uuid();
/** One platform vocabulary everywhere: the ids the RPCs, /rest/v1 and the app use. An unknown one is an error, not zeros. */
const platform = z.enum(PLATFORM_IDS).describe(`A platform id: ${PLATFORM_IDS.join(", ")}`);
const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "a day as YYYY-MM-DD");
const brand = { brand_id: uuid.describe("The brand's id (list_brands)") };
/** Rows a list tool answers at most at once (a brand's prompts or suggestions may be thousands): `offset` pages on. */
export const MAX_LIST_ROWS = 500;
const page = { limit: z.number().int().min(1).max(MAX_LIST_ROWS).optional().describe(`Rows at most (default and most ${MAX_LIST_ROWS})`), offset: z.number().int().min(0).max(1_000_000).optional() };
const paged = (a: Record<string, unknown>) => `&limit=${(a.limit as number | undefined) ?? MAX_LIST_ROWS}&offset=${(a.offset as number | undefined) ?? 0}`;
/** The insights RPCs' filters, in the tools' names. */
const filters = {
  from: day.optional().describe("First day, YYYY-MM-DD, from 2000-01-01 (default: 30 days before `to`)"),
  to: day.optional().describe("Last day, inclusive, YYYY-MM-DD, until 2999-12-31 (default: today, UTC)"),
  platforms: z.array(platform).optional(),
  models: z.array(z.string()).optional(),
  regions: z.array(z.string()).optional(),
  topic_ids: z.array(uuid).optional(),
  prompt_ids: z.array(uuid).optional(),
  branded: z.boolean().optional().describe("true: prompts naming the brand only; false: the others (what the web app's overview and competitors read by default); omitted: all prompts"),
};

function rpcArgs(a: Record<string, any>): Record<string, unknown> {
  const out: Record<string, unknown> = { p_brand_id: a.brand_id };
  for (const [from, to] of [["from", "p_from"], ["to", "p_to"], ["platforms", "p_platforms"], ["models", "p_models"], ["regions", "p_regions"], ["topic_ids", "p_topic_ids"], ["prompt_ids", "p_prompt_ids"], ["branded", "p_branded"]])
    if (a[from!] !== undefined) out[to!] = a[from!];
  return out;
}

const insight = (name: string, tool: string, description: string, extra: z.ZodRawShape = {}, more: (a: Record<string, any>) => Record<string, unknown> = () => ({})): ToolSpec => ({
  name: tool,
  description,
  input: { ...brand, ...filters, ...extra },
  run: (ctx, a) => ctx.rpc(name, { ...rpcArgs(a), ...more(a) }),
});

export const TOOLS: ToolSpec[] = [
  {
    name: "whoami",
    description: "The signed-in user and the organizations they belong to, with their role in each.",
    input: {},
    run: async (ctx) => {
      const memberships = (await ctx.rest("GET", "/organization_members?select=role,organization_id,organizations(name)")) as { role: string; organization_id: string; organizations: { name: string } }[];
      return { user: ctx.user, organizations: memberships.map((m) => ({ id: m.organization_id, name: m.organizations?.name, role: m.role })) };
    },
  },
  { name: "list_brands", description: "The brands the user can read.", input: page, run: (ctx, a) => ctx.rest("GET", `/brands?select=id,name,slug,organization_id,is_active,region,language&order=name,id${paged(a)}`) },
  {
    name: "list_prompts",
    description: "A brand's tracked prompts, with topic and whether each names the brand (branded).",
    input: { ...brand, ...page },
    run: (ctx, a) => ctx.rest("GET", `/prompts?brand_id=eq.${a.brand_id}&select=id,text,topic_id,is_active,is_branded&order=created_at,id${paged(a)}`),
  },
  { name: "list_topics", description: "A brand's topics (groups of prompts), for the topic_ids filter.", input: { ...brand, ...page }, run: (ctx, a) => ctx.rest("GET", `/topics?brand_id=eq.${a.brand_id}&select=id,name&order=name,id${paged(a)}`) },
  { name: "list_competitors", description: "A brand's competitors with their domains and aliases.", input: { ...brand, ...page }, run: (ctx, a) => ctx.rest("GET", `/competitors?brand_id=eq.${a.brand_id}&select=id,name,domain,aliases&order=name,id${paged(a)}`) },
  insight("insights_overview", "get_overview", "Visibility rate, citation share, brand-cited rate (each with n, a 95 % Wilson interval and the change against the previous window with Newcombe's interval and a verdict), share of voice, average position, visibility score and sentiment over a window."),
  insight("insights_trend", "get_trend", "Visibility (with interval), share of voice, position, citation share and sentiment per day, week or month, optionally per platform, model, region or topic.", { interval: z.enum(["day", "week", "month"]).optional(), group_by: z.enum(["none", "platform", "model", "region", "topic"]).optional() }, (a) => ({ ...(a.interval ? { p_interval: a.interval } : {}), ...(a.group_by ? { p_group_by: a.group_by } : {}) })),
  insight("insights_competitors", "compare_competitors", "The brand and each competitor: visibility (with interval), mentions, share of voice, average position, and head to head (answers naming both, only the brand, only the competitor)."),
  insight("insights_citation_domains", "list_cited_domains", "Domains the engines cite: class (own / competitor / third party), category (forum, review, …), citations, answers, prompts, share, and how often answers citing it name the brand."),
  insight("insights_citation_urls", "list_cited_urls", "Pages the engines cite, with class, category, citations, answers, first and last day seen."),
  insight("insights_search_queries", "list_search_queries", "The searches the engines ran while answering (fan-out queries), with how many answers and which platforms."),
  insight("insights_crawlers", "get_crawlers", "AI crawlers that requested the brand's site (from its server or CDN logs): per bot, class and verification verdict, requests, pages and refused requests."),
  insight("insights_crawler_trend", "get_crawler_trend", "AI crawler requests per day, week or month, per bot.", { interval: z.enum(["day", "week", "month"]).optional() }, (a) => (a.interval ? { p_interval: a.interval } : {})),
  insight("insights_crawler_paths", "get_crawler_paths", "The paths each AI crawler requested most, with refused requests."),
  {
    name: "get_prompt_answers",
    description: "The latest answer of each engine to a prompt (or to every prompt of the brand), with mentions and citations.",
    input: { ...brand, prompt_id: uuid.optional(), limit: z.number().int().min(1).max(200).optional() },
    run: (ctx, a) =>
      ctx.rest(
        "POST",
        `/rpc/get_latest_prompt_results?select=prompt_id,platform,model,region,created_at,response,mentioned,mention_position,competitor_mentions,citations,search_queries,sentiment${a.prompt_id ? `&prompt_id=eq.${a.prompt_id}` : ""}&limit=${a.limit ?? 50}`,
        { p_brand_id: a.brand_id },
      ),
  },
  {
    name: "get_ai_traffic",
    description: "Visits AI assistants sent to the brand's site, per day or week and per assistant, and the top landing pages (default: the last 30 days by day, 12 weeks by week).",
    input: { ...brand, from: day.optional(), to: day.optional(), interval: z.enum(["day", "week"]).optional() },
    run: (ctx, a) => {
      const query = new URLSearchParams({ interval: a.interval ?? "day" });
      if (a.from) query.set("from", a.from);
      if (a.to) query.set("to", a.to);
      return ctx.api("GET", `/api/brands/${a.brand_id}/traffic?${query}`);
    },
  },
  {
    name: "list_suggestions",
    description: "Suggestions for the brand (content gaps, citation outreach, …) with priority, status and evidence.",
    input: { ...brand, ...page },
    run: (ctx, a) => ctx.rest("GET", `/suggestions?brand_id=eq.${a.brand_id}&select=id,type,title,detail,priority,status,evidence,updated_at&order=updated_at.desc,id${paged(a)}`),
  },
  { name: "get_job", description: "A tracking run: status, progress and result.", input: { job_id: uuid }, run: (ctx, a) => ctx.api("GET", `/api/tracking/job/${a.job_id}`) },
  {
    name: "add_prompts",
    description: "Adds prompts (questions customers ask AI assistants) to a brand.",
    // Each text checked here, before the brand gets a prompt set it would otherwise keep empty.
    input: { ...brand, prompts: z.array(z.string().min(1).max(MAX_PROMPT_CHARS)).min(1).max(100), topic_id: uuid.optional() },
    write: true,
    run: async (ctx, a) => {
      // The topic first: its refusal, the likeliest, then leaves nothing to undo.
      if (a.topic_id && !((await ctx.rest("GET", `/topics?id=eq.${a.topic_id}&brand_id=eq.${a.brand_id}&select=id`)) as unknown[]).length)
        throw new Error(`No topic ${a.topic_id} in brand ${a.brand_id}`);
      const sets = (await ctx.rest("GET", `/prompt_sets?brand_id=eq.${a.brand_id}&select=id&order=created_at&limit=1`)) as { id: string }[];
      const made = sets[0] ? null : ((await ctx.rest("POST", "/prompt_sets?select=id", { brand_id: a.brand_id, name: "Prompts" }, { prefer: "return=representation" })) as { id: string }[])[0]!;
      const set = sets[0] ?? made!;
      try {
        return await ctx.rest("POST", "/prompts?select=id,text,is_branded", a.prompts.map((text: string) => ({ prompt_set_id: set.id, brand_id: a.brand_id, text, topic_id: a.topic_id ?? null })), { prefer: "return=representation" });
      } catch (error) {
        // Refused: a set made for these prompts goes too — unless another call (a batch runs its
        // calls at once) put prompts in it meanwhile: deleting it would take theirs.
        if (made && !((await ctx.rest("GET", `/prompts?prompt_set_id=eq.${made.id}&select=id&limit=1`).catch(() => [1])) as unknown[]).length)
          await ctx.rest("DELETE", `/prompt_sets?id=eq.${made.id}`).catch(() => {});
        throw error;
      }
    },
  },
  {
    name: "add_competitor",
    description: "Adds a competitor to a brand.",
    input: { ...brand, name: z.string().min(1), domain: z.string().optional(), aliases: z.array(z.string()).optional() },
    write: true,
    run: (ctx, a) => ctx.rest("POST", "/competitors?select=id,name,domain,aliases", { brand_id: a.brand_id, name: a.name, domain: a.domain ?? null, aliases: a.aliases ?? [] }, { prefer: "return=representation" }),
  },
  {
    name: "start_tracking",
    description: "Starts a tracking run for a brand (its enabled platforms unless given); returns the job id (get_job).",
    input: { ...brand, platforms: z.array(platform).optional(), samples: z.number().int().min(1).max(10).optional() },
    write: true,
    run: (ctx, a) => ctx.api("POST", "/api/tracking/start", { brandId: a.brand_id, platforms: a.platforms, samples: a.samples }),
  },
  {
    name: "update_suggestion",
    description: "Sets a suggestion's status (new, accepted, dismissed, in_progress, done).",
    input: { suggestion_id: uuid, status: z.enum(["new", "accepted", "dismissed", "in_progress", "done"]) },
    write: true,
    run: (ctx, a) => ctx.rest("PATCH", `/suggestions?id=eq.${a.suggestion_id}&select=id,status`, { status: a.status }, { prefer: "return=representation" }),
  },
];

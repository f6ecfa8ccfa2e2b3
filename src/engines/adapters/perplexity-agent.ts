import { addQueries, buildCitations, findMarkers, urlCitations, type CitedSpan, type ListedSource } from '../citations';
import { EngineError, malformed, truncated } from '../errors';
import { callJson } from '../http';
import { languageInstruction, perplexityCountry, perplexityLanguage } from '../locale';
import { answer, arr, num, obj, str, TextBuilder, type Adapter, type AdapterRequest } from './shared';

/**
 * Perplexity's Agent API (POST /v1/agent, an Open Responses endpoint), which Perplexity asks Sonar
 * chat-completions users to move to (https://docs.perplexity.ai/docs/agent-api/migrate-from-sonar).
 * The wire format follows Perplexity's own migration guide
 * (github.com/perplexityai/api-platform-developers, skills/migrate-sonar-to-agent-api): the request
 * is strict (an unknown field is a 400), web search is not automatic (the `web_search` tool is sent
 * and, for a model, forced), sources come from the `search_results` output item (no top-level
 * `citations`), the text cites them as `[n]` = result `id` n, and a failed run answers HTTP 200 with
 * `status: "failed"`.
 */

/**
 * The Sonar names map to Agent API selectors as Perplexity's migration table says: `sonar` is the
 * model `perplexity/sonar`; the heavier tiers have no model slug and run as presets (`low` for the
 * pro and reasoning tiers, `medium` for deep research). Any other id (`perplexity/sonar`,
 * `openai/gpt-5.1`, …) is sent as the model; `preset:<name>` sends a preset by name.
 */
const SONAR_PRESETS: Record<string, string> = {
  'sonar-pro': 'low',
  'sonar-reasoning': 'low',
  'sonar-reasoning-pro': 'low',
  'sonar-deep-research': 'medium',
};

export type AgentSelector = { model: string } | { preset: string };

export function agentSelector(model: string): AgentSelector {
  if (model === 'sonar') return { model: 'perplexity/sonar' };
  if (model.startsWith('preset:')) return { preset: model.slice('preset:'.length) };
  const preset = SONAR_PRESETS[model];
  return preset ? { preset } : { model };
}

/**
 * Region: the web_search tool's user_location.country (ISO 3166-1 alpha-2). Language:
 * language_preference (ISO 639-1), else the instruction line as a system input item. A preset
 * bundles its own web_search: the tool is sent only to carry a location (a listed tool overrides
 * only the preset's tool of that type) and search is not forced.
 */
export function agentRequestBody(req: AdapterRequest): Record<string, unknown> {
  const selector = agentSelector(req.model);
  const country = perplexityCountry(req.region);
  const language = perplexityLanguage(req.language);
  const line = language ? undefined : languageInstruction(req.language);
  const tool = { type: 'web_search', ...(country ? { user_location: { country } } : {}) };
  const isPreset = 'preset' in selector;
  return {
    ...selector,
    input: line
      ? [
          { role: 'system', content: line },
          { role: 'user', content: req.prompt },
        ]
      : req.prompt,
    ...(!isPreset || country ? { tools: [tool] } : {}),
    // Sonar always searched; a tracker measures grounded answers, so the search is not left to the model.
    ...(!isPreset ? { tool_choice: { type: 'web_search' } } : {}),
    ...(language ? { language_preference: language } : {}),
  };
}

export const perplexityAgent: Adapter = async (req, ctx, cfg) => {
  const raw = await callJson(ctx, {
    url: `${cfg.baseUrl}/v1/agent`,
    headers: { authorization: `Bearer ${cfg.apiKey ?? ''}` },
    body: agentRequestBody(req),
  });
  const res = obj(raw);
  if (!res || !Array.isArray(res.output)) throw malformed(ctx.platform, 'no output', raw);

  const status = str(res.status);
  if (status === 'failed' || status === 'cancelled') {
    const err = obj(res.error);
    throw new EngineError({
      kind: 'transient',
      platform: ctx.platform,
      message: `${ctx.platform}: the upstream ${status === 'failed' ? 'failed' : 'cancelled'} the run: ${str(err?.message) ?? str(err?.type) ?? 'no detail'}`,
    });
  }

  const builder = new TextBuilder();
  const annotated: CitedSpan[] = [];
  const results: Array<{ id?: number; source: ListedSource }> = [];
  const fetched: ListedSource[] = [];
  const searchQueries: string[] = [];
  for (const rawItem of res.output) {
    const item = obj(rawItem);
    if (!item) continue;
    if (item.type === 'search_results') {
      addQueries(searchQueries, ...arr(item.queries));
      for (const r of arr(item.results).map(obj)) {
        const url = str(r?.url);
        if (url) results.push({ id: num(r!.id), source: { url, title: str(r!.title) } });
      }
    } else if (item.type === 'fetch_url_results') {
      for (const c of arr(item.contents).map(obj)) if (str(c?.url)) fetched.push({ url: str(c!.url)!, title: str(c!.title) });
    } else if (item.type === 'message') {
      for (const rawPart of arr(item.content)) {
        const part = obj(rawPart);
        const text = str(part?.text);
        if (!part || text === undefined || (part.type !== undefined && part.type !== 'output_text')) continue;
        const span = builder.add(text, '\n\n');
        annotated.push(...urlCitations(part.annotations, text, span.start));
      }
    }
  }

  const reason = str(obj(res.incomplete_details)?.reason);
  if (status === 'incomplete' && reason === 'max_output_tokens') throw truncated(ctx.platform, 'max_output_tokens', builder.text);
  if (builder.text === '') throw malformed(ctx.platform, 'no output_text in the response', raw);

  // `[n]` in the text is the result whose id is n; ids are per response, so they are used only when
  // every result has a distinct one (several search legs may each start at 1).
  const ids = results.map((r) => r.id);
  const useIds = ids.every((id) => id !== undefined) && new Set(ids).size === ids.length;
  const sources: ListedSource[] = results.map((r, i) => ({ ...r.source, position: useIds ? r.id! : i + 1 }));
  const byNumber = new Map(sources.map((s) => [s.position, s]));
  const marked: CitedSpan[] = findMarkers(builder.text).flatMap((m) => {
    const s = byNumber.get(m.n);
    return s ? [{ ...s, start: m.start, end: m.end }] : [];
  });

  const u = obj(res.usage);
  const searches = num(obj(obj(u?.tool_calls_details)?.search_web)?.invocation);
  return answer(ctx.platform, 'api', {
    model: str(res.model) ?? req.model,
    text: builder.text,
    ...buildCitations(marked.length > 0 ? marked : annotated, [...sources, ...fetched]),
    searchQueries,
    usage: {
      inputTokens: num(u?.input_tokens),
      outputTokens: num(u?.output_tokens),
      totalTokens: num(u?.total_tokens),
      ...(searches !== undefined ? { searchRequests: searches } : {}),
    },
    finishReason: status === 'completed' || status === undefined ? 'stop' : 'other',
  });
};

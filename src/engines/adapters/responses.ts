import { addQueries, buildCitations, urlCitations, type CitedSpan, type ListedSource } from '../citations';
import { EngineError, malformed, truncated } from '../errors';
import { callJson } from '../http';
import { approximateLocation, languageInstruction, regionInstruction } from '../locale';
import type { FinishReason } from '../types';
import { answer, arr, num, obj, str, TextBuilder, type Adapter, type AdapterRequest } from './shared';

/**
 * OpenAI and xAI both speak the Responses API with a `web_search` tool taking an approximate user
 * location ({type: "approximate", country}; xAI's WebSearchUserLocation since 2026-01). Neither has
 * a language field, so the language goes as one system line.
 */
function requestBody(req: AdapterRequest, include: readonly string[], regionAsLine = false): Record<string, unknown> {
  const lines = [languageInstruction(req.language), regionAsLine ? regionInstruction(req.region) : undefined].filter(Boolean).join(' ');
  const userLocation = regionAsLine ? undefined : approximateLocation(req.region);
  return {
    model: req.model,
    input: lines
      ? [
          { role: 'system', content: lines },
          { role: 'user', content: req.prompt },
        ]
      : req.prompt,
    tools: [{ type: 'web_search', ...(userLocation ? { user_location: userLocation } : {}) }],
    ...(include.length ? { include } : {}),
  };
}

/**
 * xAI's REST reference has also described the tool's user_location as "for OpenAI compatibility
 * only, rejected if set" while its gRPC API takes it: should the upstream refuse the field, the
 * call is made once more with the country as an instruction line instead, so a regional run never
 * fails on it.
 */
function refusedUserLocation(error: unknown): boolean {
  return error instanceof EngineError && error.kind === 'rejected' && /user_location/i.test(`${error.message} ${error.excerpt ?? ''}`);
}

/** The queries of one web_search_call: OpenAI's action.query(ies), or xAI's JSON `arguments`. */
function callQueries(item: Record<string, unknown>): unknown[] {
  const action = obj(item.action);
  if (action) return [action.query, ...arr(action.queries)];
  const args = str(item.arguments);
  if (!args) return [];
  try {
    return [obj(JSON.parse(args))?.query];
  } catch {
    return [];
  }
}

function isSearch(item: Record<string, unknown>): boolean {
  const action = obj(item.action);
  return action ? str(action.type) === 'search' : true;
}

/** `include`: OpenAI returns the sources each search retrieved only when asked for them. */
function responsesAdapter(options: { include: readonly string[]; locationMayBeRefused: boolean }): Adapter {
  return async (req, ctx, cfg) => {
    const call = (regionAsLine: boolean) =>
      callJson(ctx, { url: `${cfg.baseUrl}/responses`, headers: { authorization: `Bearer ${cfg.apiKey}` }, body: requestBody(req, options.include, regionAsLine) });
    let body: unknown;
    try {
      body = await call(false);
    } catch (error) {
      if (!(options.locationMayBeRefused && req.region && refusedUserLocation(error))) throw error;
      body = await call(true);
    }
    const res = obj(body);
    const output = arr(res?.output);
    if (!res || !Array.isArray(res.output)) throw malformed(ctx.platform, 'no output', body);

    const status = str(res.status);
    const reason = str(obj(res.incomplete_details)?.reason);
    if (status === 'failed') {
      const err = obj(res.error);
      throw new EngineError({
        kind: 'transient',
        platform: ctx.platform,
        message: `${ctx.platform}: the upstream failed the response: ${str(err?.message) ?? str(err?.code) ?? 'no detail'}`,
      });
    }

    const builder = new TextBuilder();
    const cited: CitedSpan[] = [];
    // What the searches returned (OpenAI: action.sources with include web_search_call.action.sources)
    // and the pages the model opened: the text's citations are a subset of these.
    const retrieved: ListedSource[] = [];
    const searchQueries: string[] = [];
    let searches = 0;
    let refused = false;
    for (const raw of output) {
      const item = obj(raw);
      if (!item) continue;
      if (item.type === 'web_search_call') {
        addQueries(searchQueries, ...callQueries(item));
        if (isSearch(item)) searches++;
        const action = obj(item.action);
        for (const source of arr(action?.sources)) if (str(obj(source)?.url)) retrieved.push({ url: str(obj(source)!.url)! });
        if (str(action?.url)) retrieved.push({ url: str(action!.url)! });
        continue;
      }
      if (item.type !== 'message') continue;
      for (const rawPart of arr(item.content)) {
        const part = obj(rawPart);
        const partText = str(part?.text) ?? str(part?.refusal);
        if (!part || partText === undefined) continue;
        if (part.type === 'refusal') refused = true;
        const span = builder.add(partText, '\n\n');
        cited.push(...urlCitations(part.annotations, partText, span.start));
      }
    }

    if (reason === 'max_output_tokens') throw truncated(ctx.platform, 'max_output_tokens', builder.text);
    const finishReason: FinishReason = refused || reason === 'content_filter' ? 'content_filter' : status === 'completed' ? 'stop' : 'other';
    if (builder.text === '' && finishReason !== 'content_filter') throw malformed(ctx.platform, 'no output_text in the response', body);

    const u = obj(res.usage);
    return answer(ctx.platform, 'api', {
      model: str(res.model) ?? req.model,
      text: builder.text,
      // xAI lists every source it used in a top-level citations array.
      ...buildCitations(cited, [...retrieved, ...arr(res.citations).flatMap((u) => (str(u) ? [{ url: str(u)! }] : []))]),
      searchQueries,
      usage: {
        inputTokens: num(u?.input_tokens),
        outputTokens: num(u?.output_tokens),
        totalTokens: num(u?.total_tokens),
        searchRequests: searches,
      },
      finishReason,
    });
  };
}

export const openaiResponses: Adapter = responsesAdapter({ include: ['web_search_call.action.sources'], locationMayBeRefused: false });
export const xaiResponses: Adapter = responsesAdapter({ include: [], locationMayBeRefused: true });

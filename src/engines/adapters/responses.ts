import { addQueries, buildCitations, codePointOffsetToIndex, type CitedSpan } from '../citations';
import { EngineError, malformed, truncated } from '../errors';
import { callJson } from '../http';
import { approximateLocation, languageInstruction } from '../locale';
import type { FinishReason } from '../types';
import { answer, arr, num, obj, str, TextBuilder, type Adapter, type AdapterRequest } from './shared';

/**
 * OpenAI and xAI both speak the Responses API with a `web_search` tool; only the tool options differ:
 * OpenAI takes an approximate user location, xAI takes none (its region cannot be passed).
 */
function requestBody(req: AdapterRequest, withLocation: boolean): Record<string, unknown> {
  const line = languageInstruction(req.language);
  const userLocation = withLocation ? approximateLocation(req.region) : undefined;
  return {
    model: req.model,
    input: line
      ? [
          { role: 'system', content: line },
          { role: 'user', content: req.prompt },
        ]
      : req.prompt,
    tools: [{ type: 'web_search', ...(userLocation ? { user_location: userLocation } : {}) }],
  };
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

function responsesAdapter(withLocation: boolean): Adapter {
  return async (req, ctx, cfg) => {
    const body = await callJson(ctx, {
      url: `${cfg.baseUrl}/responses`,
      headers: { authorization: `Bearer ${cfg.apiKey}` },
      body: requestBody(req, withLocation),
    });
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
    const searchQueries: string[] = [];
    let searches = 0;
    let refused = false;
    for (const raw of output) {
      const item = obj(raw);
      if (!item) continue;
      if (item.type === 'web_search_call') {
        addQueries(searchQueries, ...callQueries(item));
        if (isSearch(item)) searches++;
        continue;
      }
      if (item.type !== 'message') continue;
      for (const rawPart of arr(item.content)) {
        const part = obj(rawPart);
        const partText = str(part?.text) ?? str(part?.refusal);
        if (!part || partText === undefined) continue;
        if (part.type === 'refusal') refused = true;
        const span = builder.add(partText, '\n\n');
        for (const rawAnn of arr(part.annotations)) {
          const ann = obj(rawAnn);
          const url = str(ann?.url);
          if (!ann || ann.type !== 'url_citation' || !url) continue;
          const s = num(ann.start_index);
          const e = num(ann.end_index);
          cited.push({
            url,
            title: str(ann.title),
            ...(s !== undefined && e !== undefined
              ? { start: span.start + codePointOffsetToIndex(partText, s), end: span.start + codePointOffsetToIndex(partText, e) }
              : {}),
          });
        }
      }
    }

    if (reason === 'max_output_tokens') throw truncated(ctx.platform, 'max_output_tokens', builder.text);
    const finishReason: FinishReason = refused || reason === 'content_filter' ? 'content_filter' : status === 'completed' ? 'stop' : 'other';
    if (builder.text === '' && finishReason !== 'content_filter') throw malformed(ctx.platform, 'no output_text in the response', body);

    const u = obj(res.usage);
    return answer(ctx.platform, 'api', {
      model: str(res.model) ?? req.model,
      text: builder.text,
      citations: buildCitations(cited),
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

export const openaiResponses: Adapter = responsesAdapter(true);
export const xaiResponses: Adapter = responsesAdapter(false);

import { buildCitations, type CitedSpan, type ListedSource } from '../citations';
import type { PlatformConfig } from '../config';
import { EngineError, malformed } from '../errors';
import { callJson, type CallContext } from '../http';
import { dataForSeoLanguage, dataForSeoLocation, languageInstruction, serpApiLanguage, serpApiRegion } from '../locale';
import type { AskResult, NoSurface, PlatformId } from '../types';
import { answer, arr, num, obj, str, TextBuilder, type Adapter, type AdapterRequest, type Json } from './shared';

function noSurface(platform: PlatformId, model: string, reason: string): NoSurface {
  return { noSurface: true, platform, surface: 'serp', model, reason };
}

/** Answer text and citations assembled from blocks that each cite some numbered references. */
class SerpText {
  readonly builder = new TextBuilder();
  readonly cited: CitedSpan[] = [];

  constructor(private readonly refs: Map<number, ListedSource>) {}

  add(piece: string | undefined, separator: string, refIndexes: unknown): void {
    if (!piece) return;
    const span = this.builder.add(piece, separator);
    for (const i of arr(refIndexes)) {
      const ref = typeof i === 'number' ? this.refs.get(i) : undefined;
      if (ref) this.cited.push({ ...ref, ...span });
    }
  }

  result(platform: PlatformId, model: string): AskResult {
    return answer(platform, 'serp', {
      model,
      text: this.builder.text,
      ...buildCitations(this.cited, [...this.refs.values()]),
      searchQueries: [],
    });
  }
}

/* ------------------------------------------------------------------------------------------------
 * SerpApi: engine=google (AI Overview, possibly deferred behind a page_token), engine=google_ai_mode.
 * Both answer with text_blocks (paragraph, heading, list, …) whose reference_indexes point into
 * references[].index.
 * ---------------------------------------------------------------------------------------------- */

function serpApiRefs(references: unknown): Map<number, ListedSource> {
  const refs = new Map<number, ListedSource>();
  arr(references).forEach((r, i) => {
    const ref = obj(r);
    const url = str(ref?.link);
    const index = num(ref?.index) ?? i;
    if (url) refs.set(index, { url, title: str(ref?.title), position: index + 1 });
  });
  return refs;
}

function renderSerpApiBlocks(out: SerpText, blocks: unknown): void {
  for (const raw of arr(blocks)) {
    const block = obj(raw);
    if (!block) continue;
    if (Array.isArray(block.list)) {
      block.list.forEach((rawItem, i) => {
        const item = obj(rawItem);
        const title = str(item?.title);
        const snippet = str(item?.snippet);
        const piece = title && snippet ? `${title}: ${snippet}` : (title ?? snippet);
        out.add(piece && `- ${piece}`, i === 0 ? '\n\n' : '\n', item?.reference_indexes);
        if (item?.list) renderSerpApiBlocks(out, [{ list: item.list }]);
      });
    } else if (Array.isArray(block.table)) {
      const rows = block.table.map((row) => arr(row).map(String).join(' | ')).join('\n');
      out.add(rows, '\n\n', block.reference_indexes);
    } else {
      out.add(str(block.snippet) ?? str(block.code) ?? str(block.title), '\n\n', block.reference_indexes);
    }
    if (block.text_blocks) renderSerpApiBlocks(out, block.text_blocks);
  }
}

async function serpApiGet(ctx: CallContext, cfg: PlatformConfig, params: Record<string, string | undefined>): Promise<Json> {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) query.set(k, v);
  // SerpApi takes the key only as a query parameter.
  query.set('api_key', cfg.apiKey ?? '');
  const raw = await callJson(ctx, { url: `${cfg.baseUrl}/search.json?${query}` });
  const body = obj(raw);
  if (!body) throw malformed(ctx.platform, 'not an object', raw);
  return body;
}

/** SerpApi answers "no results" with HTTP 200 and an `error` string; anything else there is a failure. */
function serpApiEmpty(ctx: CallContext, body: Json): boolean {
  const error = str(body.error);
  if (!error) return false;
  if (/hasn't returned any results|no results/i.test(error)) return true;
  throw new EngineError({ kind: 'transient', platform: ctx.platform, message: `${ctx.platform}: SerpApi error: ${error}` });
}

/**
 * SerpApi's locale: `location` (Google's canonical name of the country, e.g. "Hong Kong"), `gl` (its
 * Google countries list) and `hl` (its Google languages list, e.g. "pt-br", "zh-tw"), each only when
 * the shipped tables know the value; the query itself stays as typed (no instruction line in a search).
 */
function googleParams(req: AdapterRequest): Record<string, string | undefined> {
  const region = serpApiRegion(req.region);
  return {
    q: req.prompt,
    location: region?.location,
    gl: region?.gl,
    hl: serpApiLanguage(req.language),
  };
}

const serpApiOverview: Adapter = async (req, ctx, cfg) => {
  const page = await serpApiGet(ctx, cfg, { engine: 'google', ...googleParams(req) });
  if (serpApiEmpty(ctx, page)) return noSurface(ctx.platform, req.model, 'Google returned no results');
  let overview = obj(page.ai_overview);
  if (!overview) return noSurface(ctx.platform, req.model, 'no AI Overview on the results page');
  // Google loads some overviews later; SerpApi then hands a short-lived token for a second call.
  const token = str(overview.page_token);
  if (token && !Array.isArray(overview.text_blocks)) {
    const deferred = await serpApiGet(ctx, cfg, { engine: 'google_ai_overview', page_token: token });
    if (serpApiEmpty(ctx, deferred)) return noSurface(ctx.platform, req.model, 'the deferred AI Overview was empty');
    overview = obj(deferred.ai_overview);
  }
  if (!overview || arr(overview.text_blocks).length === 0) return noSurface(ctx.platform, req.model, 'no AI Overview on the results page');
  const out = new SerpText(serpApiRefs(overview.references));
  renderSerpApiBlocks(out, overview.text_blocks);
  return out.result(ctx.platform, req.model);
};

const serpApiMode: Adapter = async (req, ctx, cfg) => {
  const body = await serpApiGet(ctx, cfg, { engine: 'google_ai_mode', ...googleParams(req) });
  if (serpApiEmpty(ctx, body)) return noSurface(ctx.platform, req.model, 'Google returned no results');
  const out = new SerpText(serpApiRefs(body.references));
  renderSerpApiBlocks(out, body.text_blocks);
  if (out.builder.text === '') out.add(str(body.reconstructed_markdown), '', []);
  if (out.builder.text === '') return noSurface(ctx.platform, req.model, 'no AI Mode answer');
  return out.result(ctx.platform, req.model);
};

/* ------------------------------------------------------------------------------------------------
 * DataForSEO: POST a one-task array, read tasks[0].result[0].items[type=ai_overview]. Its errors come
 * inside HTTP 200, as status_code on the envelope or the task (docs: v3/appendix/errors).
 * ---------------------------------------------------------------------------------------------- */

const DATAFORSEO_NO_RESULTS = 40102;

/** Maps a DataForSEO internal status code; undefined when it is a success. */
export function dataForSeoError(ctx: CallContext, code: number, message: string): EngineError | undefined {
  if (code >= 20000 && code < 30000) return undefined;
  const text = `${ctx.platform}: DataForSEO ${code} ${message}`;
  const base = { platform: ctx.platform, message: text };
  // 40101 "Internal SE Server Error": the search engine failed this time.
  if (code >= 50000 || code === 40101) return new EngineError({ ...base, kind: 'transient' });
  // 40202–40209: request-rate limits (per minute, simultaneous requests).
  if (code >= 40202 && code <= 40209) return new EngineError({ ...base, kind: 'rate_limit', retryAfterMs: 60_000 });
  // 401xx not authorised, 402xx payment / balance.
  if ((code >= 40100 && code < 40200) || (code >= 40200 && code < 40300)) {
    return new EngineError({ ...base, kind: 'auth', variable: ctx.authVariable, message: `${text}; check ${ctx.authVariable}` });
  }
  return new EngineError({ ...base, kind: 'rejected' });
}

/**
 * DataForSEO requires a location and a language: location_code (the Google Ads geo target id of the
 * country) and its language_code, US English when the request names none. A region or language the
 * tables do not know is refused here, before any call: guessing would track another market.
 */
function dataForSeoTask(req: AdapterRequest, ctx: CallContext, extra: Json): Json {
  const locationCode = dataForSeoLocation(req.region ?? 'US');
  const languageCode = dataForSeoLanguage(req.language ?? 'en');
  const unknown = locationCode === undefined ? `region "${req.region}"` : languageCode === undefined ? `language "${req.language}"` : undefined;
  if (unknown) {
    throw new EngineError({
      kind: 'rejected',
      platform: ctx.platform,
      message: `${ctx.platform}: DataForSEO has no ${locationCode === undefined ? 'location_code' : 'language_code'} for ${unknown} (see src/engines/data/locales)`,
    });
  }
  return { keyword: req.prompt, location_code: locationCode, language_code: languageCode, ...extra };
}

function dataForSeoAdapter(path: string, extra: Json): Adapter {
  return async (req, ctx, cfg) => {
    const task = dataForSeoTask(req, ctx, extra);
    const raw = await callJson(ctx, {
      url: `${cfg.baseUrl}${path}`,
      headers: { authorization: `Basic ${btoa(`${cfg.login}:${cfg.password}`)}` },
      body: [task],
    });
    const body = obj(raw);
    const first = obj(arr(body?.tasks)[0]);
    if (!body || num(body.status_code) === undefined) throw malformed(ctx.platform, 'no status_code', raw);
    for (const level of [body, first]) {
      const code = num(level?.status_code);
      if (code === DATAFORSEO_NO_RESULTS) return noSurface(ctx.platform, req.model, 'Google returned no results');
      const err = code === undefined ? undefined : dataForSeoError(ctx, code, str(level?.status_message) ?? '');
      if (err) throw err;
    }
    if (!first) throw malformed(ctx.platform, 'no tasks[0]', raw);

    const items = arr(obj(arr(first.result)[0])?.items).map(obj);
    const overview = items.find((i) => i?.type === 'ai_overview');
    if (!overview) return noSurface(ctx.platform, req.model, 'no AI answer on the results page');

    const listed = arr(overview.references).flatMap((r) => (str(obj(r)?.url) ? [{ url: str(obj(r)!.url)!, title: str(obj(r)!.title) }] : []));
    const refs = new Map<number, ListedSource>(listed.map((r, i) => [i, { ...r, position: i + 1 }]));
    const indexOf = (url: string): number => {
      for (const [i, r] of refs) if (r.url === url) return i;
      refs.set(refs.size, { url, position: refs.size + 1 });
      return refs.size - 1;
    };
    const out = new SerpText(refs);
    for (const element of arr(overview.items).map(obj)) {
      const piece = str(element?.markdown) ?? str(element?.text);
      const elementRefs = arr(element?.references).flatMap((r) => {
        const url = str(obj(r)?.url);
        return url ? [indexOf(url)] : [];
      });
      out.add(piece, '\n\n', elementRefs);
    }
    if (out.builder.text === '') out.add(str(overview.markdown) ?? str(overview.text), '', []);
    if (out.builder.text === '') return noSurface(ctx.platform, req.model, 'the AI answer block was empty');
    return out.result(ctx.platform, req.model);
  };
}

const dataForSeoOverview = dataForSeoAdapter('/v3/serp/google/organic/live/advanced', { load_async_ai_overview: true });
const dataForSeoMode = dataForSeoAdapter('/v3/serp/google/ai_mode/live/advanced', {});

/** The Google surfaces go through whichever SERP provider the configuration picked. */
export const googleAiOverview: Adapter = (req, ctx, cfg) =>
  (cfg.provider === 'dataforseo' ? dataForSeoOverview : serpApiOverview)(req, ctx, cfg);
export const googleAiMode: Adapter = (req, ctx, cfg) => (cfg.provider === 'dataforseo' ? dataForSeoMode : serpApiMode)(req, ctx, cfg);

/* ------------------------------------------------------------------------------------------------
 * SearchApi bing_copilot: the answer as `markdown`, its sources as `reference_links`. The engine takes
 * only `q`, so the language instruction rides in the query.
 * ---------------------------------------------------------------------------------------------- */

export const searchApiCopilot: Adapter = async (req, ctx, cfg) => {
  const line = languageInstruction(req.language);
  const query = new URLSearchParams({ engine: 'bing_copilot', q: line ? `${req.prompt}\n${line}` : req.prompt });
  const raw = await callJson(ctx, {
    url: `${cfg.baseUrl}/search?${query}`,
    headers: { authorization: `Bearer ${cfg.apiKey}` },
  });
  const body = obj(raw);
  if (!body) throw malformed(ctx.platform, 'not an object', raw);
  if (str(body.error)) {
    if (/no results|didn't return|did not return/i.test(str(body.error)!)) return noSurface(ctx.platform, req.model, 'no Copilot answer');
    throw new EngineError({ kind: 'transient', platform: ctx.platform, message: `${ctx.platform}: SearchApi error: ${str(body.error)}` });
  }
  const text = str(body.markdown) ?? '';
  if (text.trim() === '') return noSurface(ctx.platform, req.model, 'no Copilot answer');
  const listed: ListedSource[] = arr(body.reference_links).flatMap((r, i) => {
    const ref = obj(r);
    const url = str(ref?.link) ?? str(ref?.url);
    return url ? [{ url, title: str(ref?.title), position: num(ref?.index) ?? i + 1 }] : [];
  });
  // Copilot's reference links are the sources its answer cites (its footnotes), not a wider search.
  return answer(ctx.platform, 'serp', { model: req.model, text, ...buildCitations(listed), searchQueries: [] });
};

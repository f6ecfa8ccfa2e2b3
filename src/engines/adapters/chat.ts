import { buildCitations, findLinks, findMarkers, stripThinking, type CitedSpan, type ListedSource } from '../citations';
import { malformed, truncated } from '../errors';
import { callJson, type CallContext } from '../http';
import { languageInstruction, perplexityCountry, perplexityLanguage } from '../locale';
import type { PlatformConfig } from '../config';
import { answer, arr, num, obj, str, type Adapter, type AdapterRequest, type Json } from './shared';

interface ChatReply {
  body: Json;
  message: Json;
  text: string;
  finishReason: 'stop' | 'content_filter' | 'other';
}

/**
 * One chat-completions call, shared by Perplexity Sonar and every OpenAI-compatible server. The
 * language goes as a system line unless `languageLine` is false (the language went in a field).
 */
async function chatCompletion(
  req: AdapterRequest,
  ctx: CallContext,
  cfg: PlatformConfig,
  extra: Record<string, unknown>,
  languageLine = true,
): Promise<ChatReply> {
  const line = languageLine ? languageInstruction(req.language) : undefined;
  const messages = [...(line ? [{ role: 'system', content: line }] : []), { role: 'user', content: req.prompt }];
  const raw = await callJson(ctx, {
    url: `${cfg.baseUrl}/chat/completions`,
    headers: cfg.apiKey ? { authorization: `Bearer ${cfg.apiKey}` } : {},
    body: { model: req.model, messages, ...extra },
  });
  const body = obj(raw);
  const choice = obj(arr(body?.choices)[0]);
  const message = obj(choice?.message);
  if (!body || !choice || !message) throw malformed(ctx.platform, 'no choices[0].message', raw);
  // Some servers send content as an array of typed parts rather than a string.
  const content =
    str(message.content) ??
    arr(message.content)
      .map((p) => str(obj(p)?.text) ?? '')
      .join('');
  const text = stripThinking(content);
  const reason = str(choice.finish_reason);
  if (reason === 'length') throw truncated(ctx.platform, 'finish_reason length', text);
  if (text === '' && reason !== 'content_filter') throw malformed(ctx.platform, 'empty message content', raw);
  return { body, message, text, finishReason: reason === 'content_filter' ? 'content_filter' : reason === 'stop' || !reason ? 'stop' : 'other' };
}

function chatUsage(body: Json) {
  const u = obj(body.usage);
  return { inputTokens: num(u?.prompt_tokens), outputTokens: num(u?.completion_tokens), totalTokens: num(u?.total_tokens) };
}

/**
 * Perplexity's request fields for region and language: web_search_options.user_location.country
 * (ISO 3166-1 alpha-2), search_language_filter and language_preference (ISO 639-1). A language with
 * no ISO 639-1 code goes as the instruction line instead; a region that is no ISO country is left out.
 */
function perplexityLocale(req: AdapterRequest): { extra: Record<string, unknown>; languageLine: boolean } {
  const country = perplexityCountry(req.region);
  const language = perplexityLanguage(req.language);
  return {
    extra: {
      ...(language ? { search_language_filter: [language], language_preference: language } : {}),
      ...(country ? { web_search_options: { user_location: { country } } } : {}),
    },
    languageLine: !language,
  };
}

/**
 * Perplexity numbers its sources: `[n]` in the text is search_results[n-1] (title, url, date), or
 * citations[n-1] (a bare URL) on older responses.
 */
export const perplexityChat: Adapter = async (req, ctx, cfg) => {
  const { extra, languageLine } = perplexityLocale(req);
  const reply = await chatCompletion(req, ctx, cfg, extra, languageLine);
  const results = arr(reply.body.search_results).map(obj);
  const sources: ListedSource[] =
    results.length > 0
      ? results.flatMap((r, i) => (str(r?.url) ? [{ url: str(r!.url)!, title: str(r!.title), position: i + 1 }] : []))
      : arr(reply.body.citations).flatMap((u, i) => (str(u) ? [{ url: str(u)!, position: i + 1 }] : []));
  const byNumber = new Map(sources.map((s) => [s.position, s]));
  const cited: CitedSpan[] = findMarkers(reply.text).flatMap((m) => {
    const s = byNumber.get(m.n);
    return s ? [{ ...s, start: m.start, end: m.end }] : [];
  });
  return answer(ctx.platform, 'api', {
    model: str(reply.body.model) ?? req.model,
    text: reply.text,
    ...buildCitations(cited, sources),
    searchQueries: [],
    usage: chatUsage(reply.body),
    finishReason: reply.finishReason,
  });
};

/**
 * Any chat-completions server. Sources come from OpenRouter-style url_citation annotations when the
 * server sends them, else from the links and bare URLs in the text.
 */
export const openaiCompatibleChat: Adapter = async (req, ctx, cfg) => {
  const reply = await chatCompletion(req, ctx, cfg, {});
  const annotations = arr(reply.message.annotations).flatMap((a): CitedSpan[] => {
    const c = obj(obj(a)?.url_citation);
    const url = str(c?.url);
    if (!c || !url) return [];
    const s = num(c.start_index);
    const e = num(c.end_index);
    return [{ url, title: str(c.title), ...(s !== undefined && e !== undefined ? { start: s, end: e } : {}) }];
  });
  return answer(ctx.platform, 'api', {
    model: str(reply.body.model) ?? req.model,
    text: reply.text,
    ...buildCitations(annotations.length > 0 ? annotations : findLinks(reply.text)),
    searchQueries: [],
    usage: chatUsage(reply.body),
    finishReason: reply.finishReason,
  });
};

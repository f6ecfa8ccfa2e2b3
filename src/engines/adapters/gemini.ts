import { addQueries, buildCitations, utf8OffsetToIndex, type CitedSpan, type ListedSource } from '../citations';
import { malformed, truncated } from '../errors';
import { callJson } from '../http';
import { languageInstruction } from '../locale';
import type { FinishReason } from '../types';
import { answer, arr, num, obj, str, type Adapter } from './shared';

const FILTERED = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII']);

/**
 * Gemini generateContent with the google_search tool. The API has no user-location parameter for
 * search grounding, so only the language reaches it (as a system instruction).
 * Grounding: groundingChunks[i].web is source i+1; each groundingSupport ties a text segment
 * (UTF-8 byte offsets within one part) to chunk indices.
 */
export const geminiGenerate: Adapter = async (req, ctx, cfg) => {
  const line = languageInstruction(req.language);
  const raw = await callJson(ctx, {
    url: `${cfg.baseUrl}/models/${encodeURIComponent(req.model)}:generateContent`,
    headers: { 'x-goog-api-key': cfg.apiKey ?? '' },
    body: {
      contents: [{ role: 'user', parts: [{ text: req.prompt }] }],
      tools: [{ google_search: {} }],
      ...(line ? { systemInstruction: { parts: [{ text: line }] } } : {}),
    },
  });
  const body = obj(raw);
  if (!body) throw malformed(ctx.platform, 'not an object', raw);
  const candidate = obj(arr(body.candidates)[0]);
  const u = obj(body.usageMetadata);
  const usage = {
    inputTokens: num(u?.promptTokenCount),
    outputTokens: num(u?.candidatesTokenCount),
    totalTokens: num(u?.totalTokenCount),
  };
  const model = str(body.modelVersion) ?? req.model;

  if (!candidate) {
    // A prompt blocked before generation has promptFeedback and no candidates.
    if (obj(body.promptFeedback)?.blockReason) {
      return answer(ctx.platform, 'api', { model, text: '', citations: [], searchQueries: [], usage, finishReason: 'content_filter' });
    }
    throw malformed(ctx.platform, 'no candidates', raw);
  }

  // Thought summaries are not part of the answer; part indices still count them.
  const parts = arr(obj(candidate.content)?.parts).map(obj);
  const partStart: number[] = [];
  let text = '';
  for (const p of parts) {
    partStart.push(text.length);
    if (p && !p.thought && typeof p.text === 'string') text += p.text;
  }
  const partText = (i: number) => str(parts[i]?.text) ?? '';

  const finish = str(candidate.finishReason);
  if (finish === 'MAX_TOKENS') throw truncated(ctx.platform, 'finishReason MAX_TOKENS', text);
  const finishReason: FinishReason = finish && FILTERED.has(finish) ? 'content_filter' : finish === 'STOP' || !finish ? 'stop' : 'other';
  if (text === '' && finishReason !== 'content_filter') throw malformed(ctx.platform, 'no text parts', raw);

  const grounding = obj(candidate.groundingMetadata);
  const sources: ListedSource[] = arr(grounding?.groundingChunks).flatMap((c, i) => {
    const web = obj(obj(c)?.web);
    const url = str(web?.uri);
    return url ? [{ url, title: str(web?.title), position: i + 1 }] : [];
  });
  const byIndex = new Map(sources.map((s) => [s.position! - 1, s]));
  const cited: CitedSpan[] = [];
  for (const s of arr(grounding?.groundingSupports)) {
    const support = obj(s);
    const segment = obj(support?.segment);
    const part = num(segment?.partIndex) ?? 0;
    const base = partStart[part] ?? 0;
    const start = base + utf8OffsetToIndex(partText(part), num(segment?.startIndex) ?? 0);
    const end = base + utf8OffsetToIndex(partText(part), num(segment?.endIndex) ?? 0);
    for (const idx of arr(support?.groundingChunkIndices)) {
      const source = typeof idx === 'number' ? byIndex.get(idx) : undefined;
      if (source) cited.push({ ...source, start, end });
    }
  }

  const searchQueries: string[] = [];
  addQueries(searchQueries, ...arr(grounding?.webSearchQueries));
  return answer(ctx.platform, 'api', {
    model,
    text,
    ...buildCitations(cited, sources),
    searchQueries,
    usage: { ...usage, searchRequests: searchQueries.length },
    finishReason,
  });
};

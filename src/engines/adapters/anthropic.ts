import { addQueries, buildCitations, type CitedSpan, type ListedSource } from '../citations';
import { malformed, truncated } from '../errors';
import { callJson } from '../http';
import { approximateLocation, languageInstruction } from '../locale';
import { answer, arr, num, obj, str, TextBuilder, type Adapter, type Json } from './shared';

const MAX_TOKENS = 4096;
const MAX_WEB_SEARCHES = 5;
/** A long server-tool turn can pause; it is resumed by sending the partial answer back, a few times at most. */
const MAX_CONTINUATIONS = 3;

/**
 * Anthropic Messages with the web_search_20250305 server tool. The answer arrives as many text
 * blocks, split wherever a citation starts or stops and around each search; they are joined in
 * order, and each block's citations cite that block's span.
 */
export const anthropicMessages: Adapter = async (req, ctx, cfg) => {
  const userLocation = approximateLocation(req.region);
  const system = languageInstruction(req.language);
  const tool = {
    type: 'web_search_20250305',
    name: 'web_search',
    max_uses: MAX_WEB_SEARCHES,
    ...(userLocation ? { user_location: userLocation } : {}),
  };
  const messages: Json[] = [{ role: 'user', content: req.prompt }];
  const blocks: Json[] = [];
  let last: Json | undefined;
  let input = 0;
  let output = 0;
  let searches = 0;

  for (let round = 0; round <= MAX_CONTINUATIONS; round++) {
    const raw = await callJson(ctx, {
      url: `${cfg.baseUrl}/messages`,
      headers: { 'x-api-key': cfg.apiKey ?? '', 'anthropic-version': '2023-06-01' },
      body: { model: req.model, max_tokens: MAX_TOKENS, ...(system ? { system } : {}), messages, tools: [tool] },
    });
    last = obj(raw);
    if (!last || !Array.isArray(last.content)) throw malformed(ctx.platform, 'no content blocks', raw);
    blocks.push(...arr(last.content).flatMap((b) => (obj(b) ? [obj(b)!] : [])));
    const u = obj(last.usage);
    input += num(u?.input_tokens) ?? 0;
    output += num(u?.output_tokens) ?? 0;
    searches += num(obj(u?.server_tool_use)?.web_search_requests) ?? 0;
    if (last.stop_reason !== 'pause_turn') break;
    messages.push({ role: 'assistant', content: last.content });
  }

  const builder = new TextBuilder();
  const cited: CitedSpan[] = [];
  // Every result of every search: the text's citations are a subset of these.
  const retrieved: ListedSource[] = [];
  const searchQueries: string[] = [];
  let afterTool = false;
  for (const block of blocks) {
    if (block.type === 'server_tool_use') {
      if (block.name === 'web_search') addQueries(searchQueries, obj(block.input)?.query);
      afterTool = true;
      continue;
    }
    if (block.type !== 'text') {
      if (block.type === 'web_search_tool_result')
        for (const r of arr(block.content)) {
          const result = obj(r);
          const url = str(result?.url);
          if (result?.type === 'web_search_result' && url) retrieved.push({ url, title: str(result.title) });
        }
      afterTool = afterTool || block.type === 'web_search_tool_result';
      continue;
    }
    const text = str(block.text) ?? '';
    // Text before and after a search reads as two paragraphs; blocks split by citations run on.
    const needsBreak = afterTool && !/\s$/.test(builder.text) && !/^\s/.test(text);
    const span = builder.add(text, needsBreak ? '\n\n' : '');
    afterTool = false;
    for (const c of arr(block.citations)) {
      const cit = obj(c);
      const url = str(cit?.url);
      if (cit?.type === 'web_search_result_location' && url) cited.push({ url, title: str(cit.title), ...span });
    }
  }

  const stop = str(last?.stop_reason);
  if (stop === 'max_tokens') throw truncated(ctx.platform, 'stop_reason max_tokens', builder.text);
  const finishReason = stop === 'refusal' ? 'content_filter' : stop === 'end_turn' || stop === 'stop_sequence' ? 'stop' : 'other';
  if (builder.text === '' && finishReason !== 'content_filter') throw malformed(ctx.platform, 'no text blocks', last);

  return answer(ctx.platform, 'api', {
    model: str(last?.model) ?? req.model,
    text: builder.text,
    ...buildCitations(cited, retrieved),
    searchQueries,
    usage: { inputTokens: input, outputTokens: output, totalTokens: input + output, searchRequests: searches },
    finishReason,
  });
};

// A sample answer (answers.ts) in the wire format of each provider the demo stands in for, shaped
// like the providers' documented responses and the recorded ones in tests/fixtures/engines/recorded:
// OpenAI Responses with web_search_call items and url_citation annotations (code-point offsets),
// Anthropic Messages with server_tool_use / web_search_tool_result blocks and cited text blocks,
// Perplexity Sonar with [n] markers over search_results, Gemini generateContent with grounding
// chunks and supports (UTF-8 byte offsets) and webSearchQueries.
import { answerText, type SampleAnswer } from "./answers";

const tokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));
const codePoints = (text: string) => Array.from(text).length;
const utf8Bytes = (text: string) => Buffer.byteLength(text, "utf8");

/** A stable id suffix for a response (hex of a string hash), so the same answer has the same ids. */
function idOf(seed: string, length = 24): string {
  let out = "";
  let h = 0x811c9dc5;
  for (let round = 0; out.length < length; round++) {
    for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 0x01000193);
    h = Math.imul(h ^ round, 0x01000193);
    out += (h >>> 0).toString(16).padStart(8, "0");
  }
  return out.slice(0, length);
}

/** Each segment's [start, end) in the joined text, in the unit `measure` counts. */
function spans(answer: SampleAnswer, measure: (text: string) => number): { start: number; end: number }[] {
  let at = 0;
  return answer.segments.map((s) => {
    const start = at;
    at += measure(s.text);
    return { start, end: at };
  });
}

export function openaiResponse(answer: SampleAnswer, model: string, seed: string, createdAt: number): unknown {
  const text = answerText(answer);
  const at = spans(answer, codePoints);
  const annotations = answer.segments.flatMap((s, i) =>
    // OpenAI appends utm_source=openai to the pages it cites.
    s.cites.map((c) => ({ type: "url_citation", start_index: at[i]!.start, end_index: at[i]!.end, title: c.title, url: `${c.url}${c.url.includes("?") ? "&" : "?"}utm_source=openai` })),
  );
  const searches = answer.queries.map((query, i) => ({
    id: `ws_${idOf(`${seed}|ws|${i}`, 48)}`,
    type: "web_search_call",
    status: "completed",
    action: { type: "search", query, sources: answer.retrieved.filter((_, j) => j % answer.queries.length === i).map((s) => ({ type: "url", url: s.url })) },
  }));
  return {
    id: `resp_${idOf(seed, 48)}`,
    object: "response",
    created_at: createdAt,
    status: "completed",
    error: null,
    incomplete_details: null,
    model,
    output: [
      { id: `rs_${idOf(`${seed}|rs`, 48)}`, type: "reasoning", summary: [] },
      ...searches,
      {
        id: `msg_${idOf(`${seed}|msg`, 48)}`,
        type: "message",
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", annotations, logprobs: [], text }],
      },
    ],
    tools: [{ type: "web_search", filters: null, search_context_size: "medium", user_location: { type: "approximate", city: null, country: "US", region: null, timezone: null } }],
    usage: { input_tokens: 9000 + tokens(text) * 3, output_tokens: tokens(text), total_tokens: 9000 + tokens(text) * 4 },
  };
}

export function anthropicMessage(answer: SampleAnswer, model: string, seed: string): unknown {
  const content: Record<string, unknown>[] = [];
  const queries = answer.queries.length ? answer.queries : [""];
  queries.forEach((query, i) => {
    const id = `srvtoolu_${idOf(`${seed}|tool|${i}`, 24)}`;
    content.push({ type: "server_tool_use", id, name: "web_search", input: { query } });
    content.push({
      type: "web_search_tool_result",
      tool_use_id: id,
      content: answer.retrieved
        .filter((_, j) => j % queries.length === i)
        .map((s) => ({ type: "web_search_result", title: s.title, url: s.url, encrypted_content: idOf(`${seed}|${s.url}`, 64), page_age: null })),
    });
  });
  // Uncited segments run together into one text block; each cited segment is a block of its own.
  let plain = "";
  for (const s of answer.segments) {
    if (!s.cites.length) {
      plain += s.text;
      continue;
    }
    if (plain) content.push({ type: "text", text: plain });
    plain = "";
    content.push({
      type: "text",
      text: s.text,
      citations: s.cites.map((c) => ({ type: "web_search_result_location", cited_text: c.snippet, url: c.url, title: c.title, encrypted_index: idOf(`${seed}|${c.url}|idx`, 40) })),
    });
  }
  if (plain) content.push({ type: "text", text: plain });
  const text = answerText(answer);
  return {
    id: `msg_${idOf(seed, 24)}`,
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 12000 + tokens(text) * 4, output_tokens: tokens(text), server_tool_use: { web_search_requests: answer.queries.length } },
  };
}

export function perplexityCompletion(answer: SampleAnswer, model: string, seed: string, createdAt: number, day: string): unknown {
  // Sources are numbered in the order the text first cites them, then the ones read but not cited.
  const numbered = [...answer.retrieved];
  const numberOf = (url: string) => numbered.findIndex((s) => s.url === url) + 1;
  let content = "";
  for (const s of answer.segments) content += s.text + s.cites.map((c) => `[${numberOf(c.url)}]`).join("");
  return {
    id: `${idOf(seed, 8)}-${idOf(`${seed}|a`, 4)}-${idOf(`${seed}|b`, 4)}-${idOf(`${seed}|c`, 4)}-${idOf(`${seed}|d`, 12)}`,
    model,
    created: createdAt,
    usage: { prompt_tokens: 14, completion_tokens: tokens(content), total_tokens: 14 + tokens(content), search_context_size: "low" },
    citations: numbered.map((s) => s.url),
    search_results: numbered.map((s) => ({ title: s.title, url: s.url, date: day, last_updated: day })),
    object: "chat.completion",
    choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content } }],
  };
}

export function geminiResponse(answer: SampleAnswer, model: string, seed: string): unknown {
  const text = answerText(answer);
  const at = spans(answer, utf8Bytes);
  // Gemini lists the sources the answer is grounded on; its chunk titles are the sites' domains.
  // (The real API sends vertexaisearch redirect URLs; the demo sends the pages' own URLs.)
  const chunks = [...new Map(answer.segments.flatMap((s) => s.cites).map((c) => [c.url, c])).values()];
  const supports = answer.segments.flatMap((s, i) =>
    s.cites.length
      ? [
          {
            segment: { partIndex: 0, startIndex: at[i]!.start, endIndex: at[i]!.end, text: s.text },
            groundingChunkIndices: s.cites.map((c) => chunks.findIndex((k) => k.url === c.url)),
            confidenceScores: s.cites.map(() => 0.9),
          },
        ]
      : [],
  );
  return {
    candidates: [
      {
        content: { parts: [{ text }], role: "model" },
        finishReason: "STOP",
        groundingMetadata: {
          webSearchQueries: answer.queries,
          searchEntryPoint: { renderedContent: '<style>.container{}</style><div class="container"><!-- Google Search suggestions --></div>' },
          groundingChunks: chunks.map((c) => ({ web: { uri: c.url, title: new URL(c.url).hostname.replace(/^www\./, "") } })),
          groundingSupports: supports,
          retrievalMetadata: {},
        },
        index: 0,
      },
    ],
    usageMetadata: { promptTokenCount: 12, candidatesTokenCount: tokens(text), totalTokenCount: 112 + tokens(text), toolUsePromptTokenCount: 100 },
    modelVersion: model,
    responseId: idOf(seed, 22),
  };
}

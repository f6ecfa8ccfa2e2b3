// What an answer (or a page an engine quotes into it) can make the analysis do: each input below
// took the former code time quadratic in its length — "a." × 20,000 held a tracking thread 8 s,
// 40 KB of it 32 s — and these are ten times longer, so the former code cannot finish them within
// the test's time-out; they also keep their answers (what is a link, a host, a source).
import { describe, expect, test } from "bun:test";
import { analyzeAnswer, buildCitations, compileEntities } from "../../src/analysis";
import { MAX_CITATION_TITLE_CHARS, MAX_CITATIONS } from "../../src/analysis/citations";
import { scanLinks } from "../../src/analysis/links";
import { prepareForLexicon } from "../../src/analysis/sentiment";
import { isWebUrl } from "../../src/analysis/urls";
import { findLinks } from "../../src/engines/citations";
import { callJson, MAX_ENGINE_BODY_BYTES } from "../../src/engines/http";
import { languageInstruction } from "../../src/engines/locale";
import { MAX_RETRY_HINT_MS, retryDelay } from "../../src/tracking/dispatcher";
import { parseInline } from "../../src/web/lib/markdown";

const brand = { id: "b", kind: "brand" as const, name: "Acme", domains: ["acme.com"] };

describe("answers that used to take quadratic time", () => {
  test("a run of dots and letters: no host in it, and the hosts around it still found", () => {
    const run = `${"a.".repeat(200_000)}1`;
    expect(scanLinks(run)).toEqual([]);
    const text = `See acme.com and ${run} then docs.acme.com.`;
    expect(scanLinks(text).map((t) => text.slice(t.start, t.end))).toEqual(["acme.com", "docs.acme.com"]);
    // A URL starting inside the run (the run cannot be skipped past it): each dot still costs a bounded walk.
    const withUrl = `${"a.".repeat(200_000)}www.acme.com/page`;
    expect(scanLinks(withUrl).map((t) => t.url)).toEqual([expect.stringContaining("www.acme.com/page")]);
  });

  test("a URL followed by a long run of dots keeps its dots when a letter ends the run, and drops them at the end of a sentence", () => {
    const dotted = `http://a${".".repeat(200_000)}x`;
    expect(scanLinks(dotted).map((t) => t.url)).toEqual([dotted]);
    expect(scanLinks(`Read http://acme.com/page${".".repeat(200_000)}`).map((t) => t.url)).toEqual(["http://acme.com/page"]);
    expect(findLinks(`Read http://acme.com/page${".".repeat(200_000)}`).map((l) => l.url)).toEqual(["http://acme.com/page"]);
  });

  test("unclosed brackets and emphasis: nothing taken for a link, real links still are", () => {
    const brackets = "[".repeat(200_000);
    expect(findLinks(brackets)).toEqual([]);
    expect(findLinks(`${brackets}[Acme](https://acme.com/)`).map((l) => [l.title, l.url])).toEqual([["Acme", "https://acme.com/"]]);
    expect(prepareForLexicon(`Acme is great ${brackets}`)).toContain("great");
    expect(prepareForLexicon("Acme is [great](https://acme.com/) and [2](x)")).not.toContain("https");
    expect(parseInline(brackets)).toEqual([{ t: "text", v: brackets }]);
    expect(parseInline("**a".repeat(100_000)).length).toBeGreaterThan(0);
    expect(parseInline("see [Acme](https://acme.com/) **now**")).toEqual([
      { t: "text", v: "see " },
      { t: "link", href: "https://acme.com/", c: [{ t: "text", v: "Acme" }] },
      { t: "text", v: " " },
      { t: "strong", c: [{ t: "text", v: "now" }] },
    ]);
  });

  test("the whole analysis of a 400 KB answer of them ends, with its one mention", () => {
    const text = `Acme leads. ${"a.".repeat(100_000)} ${"[".repeat(100_000)}`;
    const analysis = analyzeAnswer({ text, brand, language: "en" });
    expect([analysis.mentioned, analysis.mention_count]).toEqual([true, 1]);
  });
});

describe("what an answer may carry", () => {
  test("javascript: and data: are no sources, even followed by a digit; a host and its port is one", () => {
    expect(isWebUrl("javascript:0//%0aalert(document.domain)")).toBe(false);
    expect(isWebUrl("data:1,<script>")).toBe(false);
    expect(isWebUrl("example.com:8080/page")).toBe(true);
    expect(isWebUrl("https://example.com/")).toBe(true);
  });

  test("an answer keeps its first 200 sources, titles cut at 500 characters", () => {
    const compiled = compileEntities(brand);
    const inputs = Array.from({ length: 1000 }, (_, i) => ({ url: `https://site-${i}.example/page`, title: "t".repeat(600) }));
    const citations = buildCitations(compiled, inputs);
    expect(citations).toHaveLength(MAX_CITATIONS);
    expect(citations[0]!.url).toBe("https://site-0.example/page");
    expect(citations[0]!.title).toHaveLength(MAX_CITATION_TITLE_CHARS);
  });

  test("a language Intl refuses (en_US, stored before languages were checked) is read as none: the unit is analysed, no line is sent", () => {
    expect(() => analyzeAnswer({ text: "Acme is good. It is fast.", brand, language: "en_US" })).not.toThrow();
    expect(languageInstruction("en_US")).toBeUndefined();
    expect(languageInstruction(`${"x".repeat(5000)}`)).toBeUndefined();
    expect(languageInstruction("de")).toBe("Answer in German.");
  });
});

describe("what an engine may make a unit do", () => {
  test("a Retry-After of 1e16 ms waits 15 minutes at most (it made an invalid date that ended the process)", () => {
    expect(retryDelay(1, 1e16, 500, 60_000)).toBe(MAX_RETRY_HINT_MS);
    expect(retryDelay(1, 86_400_000, 500, 60_000)).toBe(MAX_RETRY_HINT_MS);
    expect(retryDelay(1, 2_000, 100, 60_000)).toBe(2_000);
  });

  test("a body over 8 MiB is refused as malformed after 8 MiB, the rest never read", async () => {
    let sent = 0;
    const chunk = new Uint8Array(1 << 20).fill(32);
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ >= 64) return controller.close();
        controller.enqueue(chunk);
      },
    });
    const fetch = async () => new Response(body, { status: 200 });
    const error = await callJson({ platform: "chatgpt", fetch: fetch as never, timeoutMs: 10_000, authVariable: "OPENAI_API_KEY" }, { url: "http://127.0.0.1/x", body: {} }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "malformed" });
    expect(String((error as Error).message)).toContain(`over ${MAX_ENGINE_BODY_BYTES} bytes`);
    expect(sent).toBeLessThan(12);
  });
});

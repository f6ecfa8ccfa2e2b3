import { describe, expect, test } from "bun:test";
import { analyzeAnswer, buildCitations, canonicalizeUrl, compileEntities, hostBelongsTo, normalizeDomain, registrableDomain } from "../../src/analysis";

describe("canonical URL", () => {
  test("lower-case host without www, no fragment, no tracking parameters, sorted query, default port dropped", () => {
    expect(canonicalizeUrl("HTTPS://WWW.Acme.com:443/Pricing/?utm_source=chatgpt.com&b=2&gclid=x&a=1#plans")).toEqual({
      normalized_url: "https://acme.com/Pricing?a=1&b=2",
      host: "acme.com",
      domain: "acme.com",
    });
    expect(canonicalizeUrl("acme.com").normalized_url).toBe("https://acme.com/");
    expect(canonicalizeUrl("http://www2.acme.com:8080/x?ref=producthunt").normalized_url).toBe("http://acme.com:8080/x");
  });
  test("registrable domain is public-suffix aware (co.uk, github.io)", () => {
    expect(registrableDomain("blog.acme.co.uk")).toBe("acme.co.uk");
    expect(registrableDomain("acme.github.io")).toBe("acme.github.io");
    expect(canonicalizeUrl("https://news.bbc.co.uk/a").domain).toBe("bbc.co.uk");
  });
  test("unparseable input is kept, without a domain", () => {
    expect(canonicalizeUrl("not a url at all")).toEqual({ normalized_url: "not a url at all", host: null, domain: null });
  });
  test("domains as users type them; host ownership never matches look-alikes", () => {
    expect(normalizeDomain("https://WWW.Acme.com/about")).toBe("acme.com");
    expect(hostBelongsTo("docs.acme.com", "acme.com")).toBe(true);
    expect(hostBelongsTo("acme.com.evil.io", "acme.com")).toBe(false);
    expect(hostBelongsTo("notacme.com", "acme.com")).toBe(false);
  });
});

describe("attribution", () => {
  const compiled = compileEntities(
    { id: "acme", kind: "brand", name: "Acme", domains: ["acme.com"] },
    [
      { id: "globex", kind: "competitor", name: "Globex", domains: ["globex.io"] },
      { id: "shop", kind: "competitor", name: "Acme Shop Partner", domains: ["shop.acme.com"] },
    ],
  );
  test("brand, competitor, most specific domain, third party, look-alike; duplicates count once at their first position", () => {
    const citations = buildCitations(compiled, [
      { url: "https://blog.acme.com/a?utm_medium=x", position: 1, title: " Acme blog " },
      { url: "https://globex.io/", position: 2 },
      { url: "https://shop.acme.com/", position: 3 },
      { url: "https://acme.com.evil.io/", position: 4 },
      { url: "https://blog.acme.com/a", position: 5 },
      { url: "https://www.g2.com/", position: 6 },
    ]);
    expect(citations.map((c) => [c.position, c.normalized_url, c.is_brand, c.competitor_id, c.title])).toEqual([
      [1, "https://blog.acme.com/a", true, null, "Acme blog"],
      [2, "https://globex.io/", false, "globex", null],
      [3, "https://shop.acme.com/", false, "shop", null],
      [4, "https://acme.com.evil.io/", false, null, null],
      [6, "https://g2.com/", false, null, null],
    ]);
    expect(citations[3]!.domain).toBe("evil.io");
  });
  test("engine citations win; without them markdown links and bare URLs of the text are the citations", () => {
    const text = "Read [the guide](https://acme.com/guide), https://globex.io/x. and <https://www.g2.com/y>.\n\n[1]: https://acme.com/ref";
    const fromText = analyzeAnswer({ text, compiled });
    expect(fromText.citations.map((c) => [c.position, c.normalized_url, c.title])).toEqual([
      [1, "https://acme.com/guide", "the guide"],
      [2, "https://globex.io/x", null],
      [3, "https://g2.com/y", null],
      [4, "https://acme.com/ref", null],
    ]);
    expect([fromText.citation_count, fromText.brand_citation_count]).toEqual([4, 2]);
    const fromEngine = analyzeAnswer({ text, compiled, citations: [{ url: "https://globex.io/" }] });
    expect([fromEngine.citation_count, fromEngine.brand_citation_count]).toEqual([1, 0]);
  });
});

test("two different pages given the same position keep their order and get distinct positions", () => {
  const compiled = compileEntities({ id: "b", kind: "brand", name: "Acme", domains: ["acme.com"] }, []);
  const out = buildCitations(compiled, [
    { url: "https://a.com/x", position: 1 },
    { url: "https://b.com/y", position: 1 },
    { url: "https://c.com/z", position: 2 },
  ]);
  expect(out.map((c) => [c.normalized_url, c.position])).toEqual([
    ["https://a.com/x", 1],
    ["https://b.com/y", 3],
    ["https://c.com/z", 2],
  ]);
});

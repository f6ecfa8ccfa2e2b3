import { describe, expect, test } from "bun:test";
import { analyzeAnswer, compileEntities, findMentions, type Entity } from "../../src/analysis";
import { MAX_PATTERN_UNITS } from "../../src/analysis/entities";
import { MAX_SYMBOLS } from "../../src/analysis/matcher";

const brand = (name: string, extra: Partial<Entity> = {}): Entity => ({ id: "brand", kind: "brand", name, ...extra });
const competitor = (id: string, name: string, extra: Partial<Entity> = {}): Entity => ({ id, kind: "competitor", name, ...extra });
const found = (entities: Entity[], text: string) => {
  const [b, ...cs] = entities;
  return findMentions(compileEntities(b!, cs), text).map((m) => [m.entity_id, m.text]);
};

describe("names with punctuation", () => {
  test("Coca-Cola, AT&T, monday.com, C++ and C# are whole names; C is not found inside them", () => {
    const entities = [brand("Coca-Cola"), competitor("att", "AT&T"), competitor("monday", "monday.com"), competitor("cpp", "C++"), competitor("cs", "C#"), competitor("c", "C", { caseSensitive: true })];
    expect(found(entities, "Coca-Cola, AT&T, monday.com, C++ and C# but also C.")).toEqual([
      ["brand", "Coca-Cola"],
      ["att", "AT&T"],
      ["monday", "monday.com"],
      ["cpp", "C++"],
      ["cs", "C#"],
      ["c", "C"],
    ]);
  });
  test("hyphen, space and no separator are the same name; dashes of any kind fold to '-'", () => {
    expect(found([brand("Coca-Cola")], "Coca Cola, CocaCola, Coca‑Cola (non-breaking hyphen), Coca–Cola")).toHaveLength(4);
  });
  test("possessives and markdown emphasis and link labels count; a longer word does not", () => {
    expect(found([brand("Acme")], "**Acme**'s plan, _Acme_, [Acme](https://x.io), Acme’s team. Acmes and AcmeCorp are other words.").map((m) => m[1])).toEqual([
      "Acme", "Acme", "Acme", "Acme",
    ]);
  });
});

describe("Unicode normalization", () => {
  test("case, diacritics and compatibility forms fold; offsets point into the original text", () => {
    const text = "Société Generale, SOCIETE GÉNÉRALE, Ｓｏｃｉéｔé Générale and Socie\u0301te\u0301 Ge\u0301ne\u0301rale";
    const mentions = findMentions(compileEntities(brand("Société Générale"), []), text);
    expect(mentions.map((m) => m.text)).toEqual(["Société Generale", "SOCIETE GÉNÉRALE", "Ｓｏｃｉéｔé Générale", "Socie\u0301te\u0301 Ge\u0301ne\u0301rale"]);
    for (const m of mentions) expect(text.slice(m.start, m.end)).toBe(m.text);
  });
  test("ß folds to ss; scripts without spaces need no word boundary", () => {
    expect(found([brand("Strasse Bank")], "Die Straße Bank.")).toEqual([["brand", "Straße Bank"]]);
    expect(found([brand("华为", { aliases: ["Huawei"] })], "我推荐华为和Huawei手机")).toEqual([
      ["brand", "华为"],
      ["brand", "Huawei"],
    ]);
  });
});

describe("common-word names", () => {
  test("a case-sensitive name matches only with its capitalization", () => {
    const entities = [brand("Notion", { caseSensitive: true }), competitor("bear", "Bear", { aliases: [{ text: "Bear Notes", caseSensitive: false }], caseSensitive: true })];
    expect(found(entities, "a vague notion; Notion is good; NOTION; bear notes; a bear; Bear")).toEqual([
      ["brand", "Notion"],
      ["bear", "bear notes"],
      ["bear", "Bear"],
    ]);
  });
});

describe("domains and URLs", () => {
  const entities = [brand("Acme", { domains: ["https://www.acme.com/"] }), competitor("globex", "Globex", { domains: ["globex.io"] })];
  test("a domain and its subdomains count for the owner; look-alikes count for nobody", () => {
    expect(found(entities, "See acme.com, docs.acme.com, ACME.COM and support@acme.com. Not acme.com.evil.io, notacme.com, acme-support.net or my-acme.com.").map((m) => m[1])).toEqual([
      "acme.com", "acme.com", "ACME.COM", "acme.com",
    ]);
  });
  test("inside a URL only the host counts; link destinations behind a label count not at all", () => {
    expect(found(entities, "https://www.g2.com/products/acme/reviews and https://globex.io/vs/acme and [a review](https://acme.com/acme)")).toEqual([["globex", "globex.io"]]);
  });
  test("a name written as a host of another domain is not a mention (acme.io is not Acme's)", () => {
    expect(found(entities, "acme.io is a parked domain, Acme is the product")).toEqual([["brand", "Acme"]]);
  });
});

describe("overlaps", () => {
  test("the longest match wins and counts once", () => {
    const entities = [brand("Apple", { caseSensitive: true }), competitor("music", "Apple Music")];
    expect(found(entities, "Apple Music beats Apple.")).toEqual([
      ["music", "Apple Music"],
      ["brand", "Apple"],
    ]);
  });
  test("the same spelling for brand and competitor goes to the brand", () => {
    expect(found([brand("Acme"), competitor("other", "Acme")], "Acme")).toEqual([["brand", "Acme"]]);
  });
  test("two names of one entity side by side are one mention", () => {
    expect(found([brand("Salesforce", { aliases: ["Sales Cloud"] })], "Salesforce Sales Cloud, then Sales Cloud.")).toEqual([
      ["brand", "Salesforce Sales Cloud"],
      ["brand", "Sales Cloud"],
    ]);
  });
});

describe("per-answer mention fields", () => {
  test("first offset, position, count and competitor_mentions", () => {
    const r = analyzeAnswer({
      text: "Globex is known. Then Acme, and Acme's rival Initech.",
      brand: brand("Acme"),
      competitors: [competitor("globex", "Globex"), competitor("initech", "Initech"), competitor("umbrella", "Umbrella")],
    });
    expect([r.mentioned, r.mention_count, r.first_mention_offset, r.mention_position]).toEqual([true, 2, 22, 2]);
    expect(r.competitor_mentions.map((c) => [c.competitor_id, c.name, c.mention_count, c.position, c.first_offset])).toEqual([
      ["globex", "Globex", 1, 1, 0],
      ["initech", "Initech", 1, 3, 45],
    ]);
  });
  test("brand not named: nulls, no sentiment, score from citations only", () => {
    const r = analyzeAnswer({ text: "Globex is known.", brand: brand("Acme", { domains: ["acme.com"] }), competitors: [competitor("globex", "Globex")], citations: [{ url: "https://acme.com/x" }] });
    expect([r.mentioned, r.mention_count, r.first_mention_offset, r.mention_position, r.list_rank, r.sentiment, r.sentiment_score]).toEqual([false, 0, null, null, null, null, null]);
    expect(r.visibility_score).toBe(20);
  });
  test("an empty answer is a valid answer", () => {
    const r = analyzeAnswer({ text: "", brand: brand("Acme") });
    expect([r.mentioned, r.citation_count, r.visibility_score, r.word_count_share]).toEqual([false, 0, 0, 0]);
  });
  test("analyzeAnswer needs a brand or compiled entities", () => {
    expect(() => analyzeAnswer({ text: "x" })).toThrow(TypeError);
  });
});

describe("the automaton's size is bounded whatever the names", () => {
  // 3,000 distinct CJK characters in one name (a member can set any name): before, a 36 MB table built in ~0.25 s; 20,000 would take 1.7 GB.
  const wide = Array.from({ length: 3000 }, (_, i) => String.fromCharCode(0x4e00 + i)).join("");
  test("past 128 distinct units the symbols are shared: the table stays states × 128, and what it finds is still exact", () => {
    const compiled = compileEntities({ id: "b", kind: "brand", name: wide }, [{ id: "c", kind: "competitor", name: "Rival" }]);
    expect(compiled.matcher.alphabet).toBe(MAX_SYMBOLS);
    expect(compiled.matcher.delta.length).toBeLessThanOrEqual((wide.length + "rival".length + 1) * MAX_SYMBOLS);
    expect(findMentions(compiled, `Ask about ${wide} and Rival.`).map((m) => m.entity_id)).toEqual(["b", "c"]);
    // The same length of other characters that share every symbol with the name: not the name.
    const lookalike = Array.from(wide, (_, i) => wide[i % (MAX_SYMBOLS - 1)]).join("");
    expect(findMentions(compiled, `Ask about ${lookalike} and Rival.`).map((m) => m.entity_id)).toEqual(["c"]);
  });

  test("a few names in one script keep their own symbols (no check needed)", () => {
    expect(compileEntities({ id: "b", kind: "brand", name: "Acme" }, [{ id: "c", kind: "competitor", name: "Globex", aliases: ["Globex Corp"] }]).matcher.verify).toBeNull();
  });

  test("many spellings that share every symbol with a long run of the text are each checked in O(1): found exactly, in bounded time", () => {
    // Units take symbols in turn (1 + (k - 1) mod 127): "a" is the 1st, so the 128th, 255th, … share its
    // symbol. "a" × 150 then such a unit, 100 times over: every position of a run of "a" ends a
    // candidate for all 100 (checked letter by letter, that was run length × 100 × 151 steps).
    let next = 0x4e00;
    const fresh = (n: number) => Array.from({ length: n }, () => String.fromCharCode(next++)).join("");
    const aliases: string[] = [fresh(122)];
    const sharing: string[] = [];
    for (let j = 0; j < 100; j++) {
      sharing.push(fresh(1));
      aliases.push(`${"a".repeat(150)}${sharing[j]}`, fresh(126));
    }
    const compiled = compileEntities({ id: "b", kind: "brand", name: "a" }, [{ id: "c", kind: "competitor", name: "Rival", aliases }]);
    const { symbolOf } = compiled.matcher;
    expect(sharing.map((c) => symbolOf[c.charCodeAt(0)])).toEqual(sharing.map(() => symbolOf[97]));
    expect(findMentions(compiled, `x ${"a".repeat(300_000)} y`)).toEqual([]);
    expect(findMentions(compiled, `x ${"a".repeat(150)}${sharing[42]} y`).map((m) => m.entity_id)).toEqual(["c"]);
  });

  test("spellings past MAX_PATTERN_UNITS are left out, the brand's first", () => {
    const aliases = Array.from({ length: 100 }, (_, i) => `alias number ${i} ${"x".repeat(480)}`);
    const compiled = compileEntities({ id: "b", kind: "brand", name: "Acme" }, Array.from({ length: 20 }, (_, i) => ({ id: `c${i}`, kind: "competitor" as const, name: `Rival ${i}`, aliases })));
    expect(compiled.patterns.reduce((n, p) => n + p.length, 0)).toBeLessThanOrEqual(MAX_PATTERN_UNITS);
    expect(findMentions(compiled, "Acme and Rival 0").map((m) => m.entity_id)).toEqual(["b", "c0"]);
  });
});

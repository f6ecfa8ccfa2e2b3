import { describe, expect, test } from "bun:test";
import { analyzeAnswer, type Entity } from "../../src/analysis";

const acme: Entity = { id: "acme", kind: "brand", name: "Acme" };
const beta: Entity = { id: "beta", kind: "competitor", name: "Beta" };
const rank = (text: string) => analyzeAnswer({ text, brand: acme, competitors: [beta] });

describe("list rank", () => {
  test("numbered list: the item's ordinal, even when every item is written '1.'", () => {
    expect(rank("Top tools:\n1. Beta – fast\n2. Acme – simple").list_rank).toBe(2);
    expect(rank("1. Beta\n1. Gamma\n1. Acme").list_rank).toBe(3);
  });
  test("bulleted list, with continuation lines and nested items counted under their parent", () => {
    const text = "- **Beta**\n  - pricing: $10\n  - made by the Beta team\n- **Acme**\n  continues here\n- Gamma";
    const r = rank(text);
    expect(r.list_rank).toBe(2);
    expect(r.competitor_mentions[0]!.list_rank).toBe(1);
  });
  test("numbered headings (### 1. Name) rank like list items, sections included", () => {
    const text = "### 1. Beta\nGood.\n\n### 2. Gamma\nFine, better than Acme.\n\n### 3. Acme\nNice.";
    expect(rank(text).list_rank).toBe(3);
  });
  test("an item that names the brand in its lead outranks an earlier passing mention", () => {
    expect(rank("1. Beta: a cheaper alternative to Acme\n2. Acme: the original").list_rank).toBe(2);
    expect(rank("1. Beta: a cheaper alternative to Acme\n2. Gamma").list_rank).toBe(1);
  });
  test("prose, tables and a new list after a paragraph", () => {
    expect(rank("Acme is good.").list_rank).toBeNull();
    expect(rank("| Tool | Price |\n|---|---|\n| Beta | 1 |\n| Acme | 2 |").list_rank).toBeNull();
    expect(rank("1. Beta\n2. Gamma\n\nSome text.\n\n1. Acme").list_rank).toBe(1);
  });
});

describe("sentences", () => {
  test("URLs and abbreviations do not cut sentences; each table row is a unit", () => {
    const r = rank("See https://acme.example/a?b=1. Acme, e.g. the app, is great.\n| Acme | ok |");
    expect(r.sentiment_passages).toEqual(["it, e.g. the app, is great.", "| it | ok |"]);
  });
  test("a following sentence that names nobody is still about the brand, on the same line only", () => {
    expect(rank("Acme is a CRM. It is excellent.\nIt is terrible.").sentiment_passages).toEqual(["it is a CRM. ", "It is excellent."]);
  });
  test("in a sentence naming several entities only the brand's clauses are scored", () => {
    expect(rank("Beta is terrible, but Acme is excellent.").sentiment_passages).toEqual(["but it is excellent."]);
    expect(rank("Unlike Beta, Acme never crashes.").sentiment).toBe("positive");
  });
});

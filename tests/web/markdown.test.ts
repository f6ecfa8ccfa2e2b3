// The answer markdown reader (src/web/lib/markdown.ts): the blocks and inline marks engines write,
// and what must stay text — HTML, links that are not http(s), stars that are not emphasis.
import { expect, test } from "bun:test";
import { parseInline, parseMarkdown } from "../../src/web/lib/markdown";

const text = (v: string) => ({ t: "text" as const, v });

test("inline: bold, italics, code and http(s) links; other schemes and HTML stay text", () => {
  expect(parseInline("**Lumenly** leads, *then* `Quantia` — see [pricing](https://lumenly.example/pricing).")).toEqual([
    { t: "strong", c: [text("Lumenly")] },
    text(" leads, "),
    { t: "em", c: [text("then")] },
    text(" "),
    { t: "code", v: "Quantia" },
    text(" — see "),
    { t: "link", href: "https://lumenly.example/pricing", c: [text("pricing")] },
    text("."),
  ]);
  expect(parseInline("[click](javascript:alert(1)) <img src=x onerror=alert(1)>")).toEqual([text("[click](javascript:alert(1)) <img src=x onerror=alert(1)>")]);
  expect(parseInline("2 * 3 * 4 and a lone * star")).toEqual([text("2 * 3 * 4 and a lone * star")]);
  expect(parseInline("**bold with [a link](http://a.example)**")).toEqual([{ t: "strong", c: [text("bold with "), { t: "link", href: "http://a.example", c: [text("a link")] }] }]);
});

test("blocks: headings, paragraphs with line breaks, lists, quotes, fenced code, tables, rules", () => {
  const source = ["## Best tools", "", "Line one", "line two", "", "- **A** first", "* B second", "", "1. one", "2) two", "---", "> quoted", "```", "<b>code</b>", "```", "| Tool | Price |", "|---|:--:|", "| A | $1 |", "| B | $2 |", "after"].join("\n");
  expect(parseMarkdown(source)).toEqual([
    { t: "h", level: 2, c: [text("Best tools")] },
    { t: "p", lines: [[text("Line one")], [text("line two")]] },
    { t: "ul", items: [[{ t: "strong", c: [text("A")] }, text(" first")], [text("B second")]] },
    { t: "ol", items: [[text("one")], [text("two")]] },
    { t: "quote", lines: [[text("quoted")]] },
    { t: "pre", v: "<b>code</b>" },
    { t: "table", head: [[text("Tool")], [text("Price")]], rows: [[[text("A")], [text("$1")]], [[text("B")], [text("$2")]]] },
    { t: "p", lines: [[text("after")]] },
  ]);
  // A row of pipes without a rule under it is a paragraph; an unclosed fence runs to the end.
  expect(parseMarkdown("| a |\nplain")).toEqual([{ t: "p", lines: [[text("| a |")], [text("plain")]] }]);
  expect(parseMarkdown("```\nx")).toEqual([{ t: "pre", v: "x" }]);
});

// The markdown that engines answer in, read into a small tree (pure): paragraphs, headings, lists,
// quotes, fenced code, tables; bold, italics, inline code and http(s) links. The web app renders the
// tree as elements, never as HTML, so nothing an engine wrote can run in the page.

export type Inline = { t: "text"; v: string } | { t: "strong"; c: Inline[] } | { t: "em"; c: Inline[] } | { t: "code"; v: string } | { t: "link"; href: string; c: Inline[] };
export type Block =
  | { t: "p"; lines: Inline[][] }
  | { t: "h"; level: number; c: Inline[] }
  | { t: "ul" | "ol"; items: Inline[][] }
  | { t: "quote"; lines: Inline[][] }
  | { t: "pre"; v: string }
  | { t: "table"; head: Inline[][]; rows: Inline[][][] };

// Earliest first: **bold**, *italic* (not a lone star between spaces), `code`, [text](http…).
// Each span is bounded (bold 1,000 units, a label at the next "[", a destination at the next "("): an
// unclosed "**" or "[" repeated along a line made every start scan to the line's end.
const INLINE = /\*\*(?=\S)([\s\S]{1,1000}?)\*\*|\*(?=[^\s*])([^*]+?)\*(?!\*)|`([^`]+)`|\[([^[\]]+)\]\((https?:\/\/[^\s()]+)\)/;

export function parseInline(text: string): Inline[] {
  const out: Inline[] = [];
  let rest = text;
  for (let m = INLINE.exec(rest); m; m = INLINE.exec(rest)) {
    if (m.index > 0) out.push({ t: "text", v: rest.slice(0, m.index) });
    if (m[1] !== undefined) out.push({ t: "strong", c: parseInline(m[1]) });
    else if (m[2] !== undefined) out.push({ t: "em", c: parseInline(m[2]) });
    else if (m[3] !== undefined) out.push({ t: "code", v: m[3] });
    else out.push({ t: "link", href: m[5]!, c: parseInline(m[4]!) });
    rest = rest.slice(m.index + m[0].length);
  }
  if (rest) out.push({ t: "text", v: rest });
  return out;
}

const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const BULLET = /^\s*[-*+]\s+(.*)$/;
const NUMBERED = /^\s*\d{1,3}[.)]\s+(.*)$/;
const QUOTE = /^\s*>\s?(.*)$/;
const FENCE = /^\s*(```|~~~)/;
const RULE = /^\s*([-*_])(\s*\1){2,}\s*$/;
const TABLE_ROW = /^\s*\|.*\|\s*$/;
const TABLE_RULE = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/;
const cells = (row: string) => row.trim().replace(/^\||\|$/g, "").split("|").map((c) => parseInline(c.trim()));

export function parseMarkdown(text: string): Block[] {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const blocks: Block[] = [];
  let paragraph: Inline[][] = [];
  const endParagraph = () => {
    if (paragraph.length) blocks.push({ t: "p", lines: paragraph });
    paragraph = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    let m: RegExpExecArray | null;
    if (FENCE.test(line)) {
      endParagraph();
      const fence = FENCE.exec(line)![1]!;
      const code: string[] = [];
      for (i++; i < lines.length && !lines[i]!.trim().startsWith(fence); i++) code.push(lines[i]!);
      blocks.push({ t: "pre", v: code.join("\n") });
    } else if ((m = HEADING.exec(line))) {
      endParagraph();
      blocks.push({ t: "h", level: m[1]!.length, c: parseInline(m[2]!) });
    } else if (RULE.test(line)) {
      endParagraph();
    } else if (TABLE_ROW.test(line) && TABLE_RULE.test(lines[i + 1] ?? "")) {
      endParagraph();
      const head = cells(line);
      const rows: Inline[][][] = [];
      for (i += 2; i < lines.length && TABLE_ROW.test(lines[i]!); i++) rows.push(cells(lines[i]!));
      i--;
      blocks.push({ t: "table", head, rows });
    } else if ((m = BULLET.exec(line)) || (m = NUMBERED.exec(line))) {
      endParagraph();
      const kind = BULLET.test(line) ? "ul" : "ol";
      const pattern = kind === "ul" ? BULLET : NUMBERED;
      const items: Inline[][] = [];
      for (; i < lines.length && (m = pattern.exec(lines[i]!)); i++) items.push(parseInline(m[1]!));
      i--;
      blocks.push({ t: kind, items });
    } else if ((m = QUOTE.exec(line))) {
      endParagraph();
      const quoted: Inline[][] = [];
      for (; i < lines.length && (m = QUOTE.exec(lines[i]!)); i++) quoted.push(parseInline(m[1]!));
      i--;
      blocks.push({ t: "quote", lines: quoted });
    } else if (!line.trim()) {
      endParagraph();
    } else {
      paragraph.push(parseInline(line.trim()));
    }
  }
  endParagraph();
  return blocks;
}

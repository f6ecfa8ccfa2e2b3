// An engine's markdown answer as elements (src/web/lib/markdown.ts): text goes through `text` (the
// prompt page marks brand and competitor names there); links open outside, without a referrer.
import type { ComponentChildren } from "preact";
import { parseMarkdown, type Inline } from "../lib/markdown";

type TextRenderer = (text: string) => ComponentChildren;

function inline(nodes: Inline[], text: TextRenderer): ComponentChildren[] {
  return nodes.map((n) => {
    if (n.t === "text") return text(n.v);
    if (n.t === "code") return <code>{n.v}</code>;
    if (n.t === "strong" || n.t === "em") return n.t === "strong" ? <strong>{inline(n.c, text)}</strong> : <em>{inline(n.c, text)}</em>;
    return (
      <a href={n.href} target="_blank" rel="noopener noreferrer nofollow">
        {inline(n.c, text)}
      </a>
    );
  });
}

const lines = (rows: Inline[][], text: TextRenderer) => rows.flatMap((row, i) => [...(i ? [<br />] : []), ...inline(row, text)]);

export function Markdown({ source, text = (s) => s }: { source: string; text?: TextRenderer }) {
  return (
    <>
      {parseMarkdown(source).map((b) => {
        switch (b.t) {
          case "p":
            return <p>{lines(b.lines, text)}</p>;
          case "h":
            return <p class={`md-h md-h${Math.min(b.level, 4)}`}>{inline(b.c, text)}</p>;
          case "ul":
            return <ul>{b.items.map((item) => <li>{inline(item, text)}</li>)}</ul>;
          case "ol":
            return <ol>{b.items.map((item) => <li>{inline(item, text)}</li>)}</ol>;
          case "quote":
            return <blockquote>{lines(b.lines, text)}</blockquote>;
          case "pre":
            return (
              <pre>
                <code>{b.v}</code>
              </pre>
            );
          case "table":
            return (
              <div class="md-table">
                <table>
                  <thead>
                    <tr>{b.head.map((c) => <th>{inline(c, text)}</th>)}</tr>
                  </thead>
                  <tbody>
                    {b.rows.map((r) => (
                      <tr>{r.map((c) => <td>{inline(c, text)}</td>)}</tr>
                    ))}
                  </tbody>
                </table>
              </div>
            );
        }
      })}
    </>
  );
}

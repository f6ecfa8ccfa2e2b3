// Suggestions with their evidence; editors accept or dismiss them (the only column /rest/v1 lets
// a client change).
import { useState } from "preact/hooks";
import { Empty, ErrorBox, Loading, unwrap, useAsync } from "../components/ui";
import { dateTime } from "../lib/format";
import { errorMessage } from "../lib/session";
import type { BrandContext } from "./brand";

const PRIORITY = { high: 0, medium: 1, low: 2 } as Record<string, number>;

export function Suggestions({ ctx }: { ctx: BrandContext }) {
  const data = useAsync(async () => unwrap(await ctx.conn.sb.from("suggestions").select("id, type, title, detail, evidence, priority, status, updated_at").eq("brand_id", ctx.brand.id)) as any[], [ctx.brand.id]);
  const [error, setError] = useState<string | null>(null);
  async function setStatus(id: string, status: string) {
    const { error } = await ctx.conn.sb.from("suggestions").update({ status }).eq("id", id);
    if (error) setError(errorMessage(error));
    else data.reload();
  }
  if (data.loading && !data.data) return <Loading what="Loading suggestions" />;
  if (data.error) return <ErrorBox error={data.error} />;
  const list = [...data.data!].sort((a, b) => (PRIORITY[a.priority] ?? 3) - (PRIORITY[b.priority] ?? 3) || a.type.localeCompare(b.type));
  if (!list.length)
    return (
      <Empty title="No suggestions yet">
        <p>Each run looks for gaps — prompts where competitors are named and you are not, sources that cite them and not you — and lists them here.</p>
      </Empty>
    );
  return (
    <section>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <ul class="suggestions">
        {list.map((s) => (
          <li key={s.id} class={`card suggestion ${s.status}`}>
            <div class="heading">
              <span class={`tag priority-${s.priority}`}>{s.priority}</span>
              <span class="tag">{s.type.replaceAll("_", " ")}</span>
              <strong>{s.title}</strong>
              <span class="muted">{s.status} · {dateTime(s.updated_at)}</span>
            </div>
            {s.detail && <p>{s.detail}</p>}
            <details>
              <summary>Evidence</summary>
              <pre>{JSON.stringify(s.evidence, null, 2)}</pre>
            </details>
            {ctx.canEdit && s.status === "new" && (
              <div class="actions">
                <button type="button" onClick={() => setStatus(s.id, "accepted")}>
                  Accept
                </button>
                <button type="button" onClick={() => setStatus(s.id, "dismissed")}>
                  Dismiss
                </button>
              </div>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

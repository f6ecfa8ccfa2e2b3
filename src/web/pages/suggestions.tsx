// Suggestions with their evidence, most urgent first and filterable by type; editors accept or
// dismiss them (the only column /rest/v1 lets a client change). Prompts are shown by their text and
// link to their page; ids never reach the screen.
import { useState } from "preact/hooks";
import { Empty, ErrorBox, ExternalLink, Loading, unwrap, useAsync } from "../components/ui";
import { dateTime } from "../lib/format";
import { errorMessage } from "../lib/session";
import type { BrandContext } from "../lib/brand-context";

const PRIORITY = { high: 0, medium: 1, low: 2 } as Record<string, number>;
/** A suggestion's status in words. */
const STATUS_TEXT: Record<string, string> = { new: "new", accepted: "accepted: to do", in_progress: "in progress", done: "done", dismissed: "dismissed" };

export function Suggestions({ ctx }: { ctx: BrandContext }) {
  const data = useAsync(async () => {
    const [suggestions, prompts] = await Promise.all([
      ctx.conn.sb.from("suggestions").select("id, type, title, detail, evidence, priority, status, updated_at").eq("brand_id", ctx.brand.id),
      ctx.conn.sb.from("prompts").select("id, text").eq("brand_id", ctx.brand.id),
    ]);
    return { suggestions: unwrap(suggestions) as any[], prompts: new Map((unwrap(prompts) as { id: string; text: string }[]).map((p) => [p.id, p.text])) };
  }, [ctx.brand.id]);
  const [error, setError] = useState<string | null>(null);
  const [type, setType] = useState("all");
  async function setStatus(id: string, status: string) {
    const { error } = await ctx.conn.sb.from("suggestions").update({ status }).eq("id", id);
    if (error) setError(errorMessage(error));
    else data.reload();
  }
  if (data.loading && !data.data) return <Loading what="Loading suggestions" />;
  if (data.error) return <ErrorBox error={data.error} />;
  const all = [...data.data!.suggestions].sort((a, b) => (PRIORITY[a.priority] ?? 3) - (PRIORITY[b.priority] ?? 3) || a.type.localeCompare(b.type));
  const types = [...new Set(all.map((s) => s.type as string))].sort();
  const list = all.filter((s) => type === "all" || s.type === type);
  const promptText = data.data!.prompts;
  const promptLink = (id: string) => <a href={`/b/${ctx.brand.id}/prompts/${id}`}>{promptText.get(id) ?? "a prompt since removed"}</a>;
  if (!all.length)
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
      <p class="muted">
        Priority follows the evidence: <strong>high</strong> when at least 5 answers show the problem and we can be confident at least half of such answers do (the 95 % interval of their share starts at 50 %); <strong>medium</strong> from 3
        answers and a fifth; otherwise <strong>low</strong> — one or two answers never make more than low. They are made again from the answers of each run.
      </p>
      <label class="inline">
        Type{" "}
        <select value={type} onChange={(e) => setType((e.target as HTMLSelectElement).value)}>
          <option value="all">All types ({all.length})</option>
          {types.map((t) => (
            <option key={t} value={t}>
              {t.replaceAll("_", " ")} ({all.filter((s) => s.type === t).length})
            </option>
          ))}
        </select>
      </label>
      <ul class="suggestions">
        {list.map((s) => (
          <li key={s.id} class={`card suggestion ${s.status}`}>
            <div class="heading">
              <span class={`tag priority-${s.priority}`}>{s.priority}</span>
              <span class="tag">{s.type.replaceAll("_", " ")}</span>
              <strong>{s.evidence?.prompt_ids?.length === 1 ? <a href={`/b/${ctx.brand.id}/prompts/${s.evidence.prompt_ids[0]}`}>{s.title}</a> : s.title}</strong>
              <span class="muted">{STATUS_TEXT[s.status] ?? s.status} · updated {dateTime(s.updated_at)}</span>
            </div>
            {s.detail && <p>{s.detail}</p>}
            <details>
              <summary>Evidence: {s.evidence?.answers ?? 0} answer{(s.evidence?.answers ?? 0) === 1 ? "" : "s"}{s.evidence?.platforms?.length ? ` on ${s.evidence.platforms.join(", ")}` : ""}</summary>
              <ul class="plain">
                {(s.evidence?.prompt_ids ?? []).map((id: string) => (
                  <li key={id}>Prompt: {promptLink(id)}</li>
                ))}
                {/* The evidence names the first prompts only (src/analysis/suggestions.ts). */}
                {(s.evidence?.prompts ?? 0) > (s.evidence?.prompt_ids?.length ?? 0) && (
                  <li class="muted">and {s.evidence.prompts - (s.evidence.prompt_ids?.length ?? 0)} more prompt(s)</li>
                )}
                {(s.evidence?.competitors ?? []).map((c: { name: string; answers: number }) => (
                  <li key={c.name}>
                    Competitor {c.name}: named in {c.answers} answer(s)
                  </li>
                ))}
                {(s.evidence?.urls ?? []).map((u: string) => (
                  <li key={u}>
                    Page: <ExternalLink url={u}>{u}</ExternalLink>
                  </li>
                ))}
                {(s.evidence?.passages ?? []).map((p: string) => (
                  <li key={p}>“{p}”</li>
                ))}
              </ul>
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

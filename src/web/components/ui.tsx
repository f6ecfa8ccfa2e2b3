// Small shared pieces: loading, error and empty states, the async-data hook, and a labelled field.
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { countedFromNote } from "../../insights/changes";
import { errorMessage } from "../lib/session";
import { pct } from "../lib/format";

export function Loading({ what = "Loading" }: { what?: string }) {
  return (
    <p class="state" role="status" aria-live="polite">
      {what}…
    </p>
  );
}

export function ErrorBox({ error }: { error: unknown }) {
  return (
    <p class="state error" role="alert">
      {errorMessage(error)}
    </p>
  );
}

export function Empty({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty">
      <p class="empty-title">{title}</p>
      {children}
    </div>
  );
}

export interface Async<T> {
  data?: T;
  error?: unknown;
  loading: boolean;
  reload(): void;
}

/** Runs `load` when `deps` change; the newest call wins. */
export function useAsync<T>(load: () => Promise<T>, deps: unknown[]): Async<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true, error: undefined }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (error) => live && setState({ error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return { ...state, reload: () => setTick((t) => t + 1) };
}

/** A supabase-js answer as data or a thrown error (with the server's message). */
export function unwrap<T>(result: { data: T | null; error: unknown }): T {
  if (result.error) throw result.error;
  return result.data as T;
}

/** A labelled control; the hint sits outside the label, so the control's name is the label alone. */
export function Field({ label, hint, children }: { label: string; hint?: string; children: ComponentChildren }) {
  return (
    <div class="field">
      <label>
        <span class="field-label">{label}</span>
        {children}
      </label>
      {hint && <span class="field-hint">{hint}</span>}
    </div>
  );
}

/** Only http(s) URLs become links; anything else an engine cited (javascript:, data:, …) stays text. */
export const isHttpUrl = (url: unknown): url is string => typeof url === "string" && /^https?:\/\//i.test(url.trim());

/** A link to a page outside the app, opened in a new tab without a referrer — or plain text when the URL is not http(s). */
export function ExternalLink({ url, children, label }: { url: string; children: ComponentChildren; label?: string }) {
  if (!isHttpUrl(url)) return <span class="not-a-link">{children}</span>;
  return (
    <a href={url} rel="noreferrer noopener" target="_blank" aria-label={label}>
      {children}
    </a>
  );
}

/** A value to paste elsewhere (an endpoint, a key's prefix): read-only, selectable, with a Copy button. */
export function CopyField({ label, value }: { label: string; value: string }) {
  return (
    <span class="copy-field">
      <input readOnly aria-label={label} value={value} size={Math.min(value.length, 60)} onFocus={(e) => (e.target as HTMLInputElement).select()} />
      <button type="button" onClick={() => navigator.clipboard?.writeText(value)}>
        Copy
      </button>
    </span>
  );
}

/**
 * An entity of a competitor table: the brand in bold; a competitor added inside the window, when
 * the window has answers from before (`windowN`: the brand's n), says from when its figures count;
 * one added after the window (`windowTo`) says so.
 */
export function EntityName({ row, windowN, windowTo, you = false, children }: { row: { name: string; is_brand: boolean; n: number; counted_from?: string | null }; windowN: number; windowTo: string; you?: boolean; children?: ComponentChildren }) {
  if (row.is_brand) return <strong>{you ? `${row.name} (you)` : row.name}</strong>;
  const note = countedFromNote(row, windowN, windowTo);
  return (
    <span class="name-cell">
      {children ?? row.name}
      {note && (
        <span class="cell-ci" title="Looked for only in the answers analysed since it was added: its figures are over those">
          {note}
        </span>
      )}
    </span>
  );
}

/** The window's answers: the brand's row's n in a competitor table. */
export const windowAnswers = (rows: readonly { is_brand: boolean; n: number }[]) => rows.find((r) => r.is_brand)?.n ?? 0;

/** A rate with its 95 % interval underneath, as text (no hover needed). */
export function RateCell({ value, ci_low, ci_high, n }: { value: number | null; ci_low: number | null; ci_high: number | null; n: number }) {
  return (
    <span class="rate-cell">
      {pct(value)}
      {n > 0 && value !== null && <span class="cell-ci">{`${pct(ci_low)} – ${pct(ci_high)}`}</span>}
    </span>
  );
}

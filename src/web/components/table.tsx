// Every table: sortable by any column (click or Enter on its header), paged (`pageSize` rows at a
// time), exportable as the CSV of all its rows.
import type { ComponentChildren } from "preact";
import { useMemo, useState } from "preact/hooks";
import { downloadCsv, toCsv } from "../lib/csv";

export interface Column<T> {
  key: string;
  header: string;
  /** What the column sorts and exports by. */
  value: (row: T) => string | number | boolean | null | undefined;
  render?: (row: T) => ComponentChildren;
  numeric?: boolean;
  title?: (row: T) => string | undefined;
  /** false: the header is a plain label (a sparkline has no order worth sorting by). */
  sortable?: boolean;
  /** More columns for the CSV only (a rate's interval bounds, say). */
  csvExtra?: { key: string; value: (row: T) => number | string | null | undefined }[];
}

/** A rate column's 95 % interval bounds in its CSV export (rows carrying ci_low and ci_high). */
export const INTERVAL_CSV = [
  { key: "ci_low", value: (r: any) => r.ci_low as number | null },
  { key: "ci_high", value: (r: any) => r.ci_high as number | null },
];

export function Table<T>({ rows, columns, csvName, initialSort, rowKey, caption, pageSize = 50 }: { rows: T[]; columns: Column<T>[]; csvName: string; initialSort?: { key: string; desc: boolean }; rowKey: (row: T) => string; caption?: string; pageSize?: number }) {
  const [sort, setSort] = useState(initialSort ?? null);
  const [page, setPage] = useState(0);
  const pages = Math.max(1, Math.ceil(rows.length / pageSize));
  const current = Math.min(page, pages - 1);
  const sorted = useMemo(() => {
    if (!sort) return rows;
    const col = columns.find((c) => c.key === sort.key);
    if (!col) return rows;
    return [...rows].sort((a, b) => {
      const x = col.value(a);
      const y = col.value(b);
      if (x === y) return 0;
      if (x === null || x === undefined) return 1;
      if (y === null || y === undefined) return -1;
      const c = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
      return sort.desc ? -c : c;
    });
  }, [rows, sort, columns]);
  const toggle = (key: string) => {
    setSort((s) => (s?.key === key ? { key, desc: !s.desc } : { key, desc: true }));
    setPage(0);
  };
  const shown = sorted.slice(current * pageSize, (current + 1) * pageSize);
  return (
    <div class="table-wrap">
      <div class="table-tools">
        {caption && <span class="table-caption">{caption}</span>}
        <button type="button" class="link" onClick={() => downloadCsv(csvName, toCsv(sorted, columns.flatMap((c) => [{ header: c.key, value: c.value }, ...(c.csvExtra ?? []).map((x) => ({ header: x.key, value: x.value }))])))}>
          Export CSV
        </button>
      </div>
      <div class="scroll-x">
        <table>
          <thead>
            <tr>
              {columns.map((c) => (
                // A column without a header (row actions) is not sortable: a button needs a name.
                c.header && c.sortable === false ? (
                  <th key={c.key} class={c.numeric ? "num" : undefined}>
                    {c.header}
                  </th>
                ) : c.header ? (
                  <th key={c.key} class={c.numeric ? "num" : undefined} aria-sort={sort?.key === c.key ? (sort.desc ? "descending" : "ascending") : "none"}>
                    <button type="button" class="sort" onClick={() => toggle(c.key)}>
                      {c.header}
                      <span aria-hidden="true">{sort?.key === c.key ? (sort.desc ? " ▾" : " ▴") : ""}</span>
                    </button>
                  </th>
                ) : (
                  <th key={c.key}>
                    <span class="visually-hidden">Actions</span>
                  </th>
                )
              ))}
            </tr>
          </thead>
          <tbody>
            {shown.map((row) => (
              <tr key={rowKey(row)}>
                {columns.map((c) => (
                  <td key={c.key} class={c.numeric ? "num" : undefined} title={c.title?.(row)} data-col={c.key} data-label={c.header || undefined}>
                    {c.render ? c.render(row) : String(c.value(row) ?? "—")}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {pages > 1 && (
        <nav class="pager" aria-label="Table pages">
          <button type="button" disabled={current === 0} onClick={() => setPage(current - 1)}>
            Previous
          </button>
          <span role="status">
            Rows {current * pageSize + 1}–{Math.min(rows.length, (current + 1) * pageSize)} of {rows.length}
          </span>
          <button type="button" disabled={current === pages - 1} onClick={() => setPage(current + 1)}>
            Next
          </button>
        </nav>
      )}
    </div>
  );
}

// Tables export what they show as CSV, computed in the browser from the rows on screen; cells a
// spreadsheet would run as formulas are neutralized (src/common/csv-cell.ts).
import { neutralizeFormula } from "../../common/csv-cell";
export interface CsvColumn<T> {
  header: string;
  value: (row: T) => unknown;
}

const field = (v: unknown) => {
  if (v === null || v === undefined) return "";
  // Six decimals are more than any rate or mean here carries; 16-digit floats only add noise.
  const text = typeof v === "number" ? String(Number.isInteger(v) ? v : Math.round(v * 1e6) / 1e6) : neutralizeFormula(typeof v === "object" ? JSON.stringify(v) : String(v));
  // `;` and tab too: a spreadsheet set to a semicolon locale splits an unquoted cell there, and the
  // part after it could start a formula.
  return /[",;\t\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

export function toCsv<T>(rows: T[], columns: CsvColumn<T>[]): string {
  return [columns.map((c) => field(c.header)).join(","), ...rows.map((r) => columns.map((c) => field(c.value(r))).join(","))].join("\n") + "\n";
}

export function downloadCsv(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: "text/csv;charset=utf-8" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

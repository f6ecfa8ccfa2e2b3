// Pure code shared by the server and the web app (no I/O, no imports).
//
// CSV formula injection (OWASP "CSV Injection"): a spreadsheet runs a cell that begins with `=`,
// `+`, `-`, `@`, a tab or a carriage return as a formula, so an engine's answer or a prompt written
// by someone else could run in the reader's spreadsheet. Such text cells get a leading `'`, which
// spreadsheets show as text; numbers (negative ones included) stay numbers.

const FORMULA_START = /^[=+\-@\t\r]/;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** The text of a CSV cell, with a leading `'` when a spreadsheet would read it as a formula. */
export function neutralizeFormula(text: string): string {
  return FORMULA_START.test(text) && !NUMBER.test(text) ? `'${text}` : text;
}

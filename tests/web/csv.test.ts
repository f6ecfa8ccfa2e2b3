// The web app's table exports (src/web/lib/csv.ts): a cell a spreadsheet would run as a formula is
// kept as text — at its start (a leading ') and after a `;`, where a spreadsheet set to a semicolon
// locale splits an unquoted cell — and numbers stay numbers.
import { expect, test } from "bun:test";
import { toCsv } from "../../src/web/lib/csv";

test("formula-like cells are neutralized or quoted; numbers and plain text are as they are", () => {
  const rows = [{ path: "/pricing", hits: 12 }, { path: "=HYPERLINK(\"x\")", hits: -3 }, { path: "x;=cmd|'/Ccalc'!A0", hits: 0.5 }, { path: "a\tb", hits: 1 }, { path: "@SUM(A1)", hits: 2 }];
  const text = toCsv(rows, [{ header: "path", value: (r) => r.path }, { header: "hits", value: (r) => r.hits }]);
  expect(text.split("\n")).toEqual(["path,hits", "/pricing,12", `"'=HYPERLINK(""x"")",-3`, `"x;=cmd|'/Ccalc'!A0",0.5`, `"a\tb",1`, "'@SUM(A1),2", ""]);
});

// Where the web app may take a reader after sign-in (?next=): a path of its own, never another
// origin — history.replaceState throws on one, which left a blank page.
import { expect, test } from "bun:test";
import { appPath } from "../../src/web/lib/router";

test("?next= names a path of the app, else the app's start", () => {
  for (const ok of ["/", "/b/123/prompts?from=2026-01-01", "/account?recovered=1"]) expect(appPath(ok)).toBe(ok);
  for (const other of ["https://evil.example", "//evil.example/x", "/\\evil.example", "javascript:alert(1)", ""]) expect(appPath(other)).toBe("/");
});

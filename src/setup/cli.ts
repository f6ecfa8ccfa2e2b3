// The setup commands: apply a brand file (printing the plan first; --dry-run stops there), export a
// brand as that file, list brands.
import type { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { ApplyError, applyBrandFile, exportBrandFile } from "./apply";
import { BrandFileError, brandFileText, parseBrandFile } from "./brand-file";

type Out = { write(text: string): void };

export function runApplyCommand(args: string[], deps: { sqlite: Database; platforms: string[] }, out: Out = process.stdout, err: Out = process.stderr): number {
  const dryRun = args.includes("--dry-run");
  const files = args.filter((a) => a !== "--dry-run");
  if (files.length !== 1 || files[0]!.startsWith("-")) {
    err.write("usage: answerwatch apply FILE.yaml [--dry-run]\n");
    return 2;
  }
  let text: string;
  try {
    text = readFileSync(files[0]!, "utf8");
  } catch (error) {
    err.write(`answerwatch: cannot read ${files[0]}: ${(error as NodeJS.ErrnoException).code ?? String(error)}\n`);
    return 2;
  }
  try {
    const file = parseBrandFile(text, files[0]!, deps.platforms);
    const { changes } = applyBrandFile(deps.sqlite, file, { dryRun: true });
    if (!changes.length) {
      out.write(`${file.brand.slug}: no changes\n`);
      return 0;
    }
    out.write(`${file.brand.slug}: ${changes.length} change(s)${dryRun ? " (dry run: nothing applied)" : ""}\n${changes.map((c) => `  ${c.kind} ${c.what}`).join("\n")}\n`);
    if (dryRun) return 0;
    applyBrandFile(deps.sqlite, file);
    out.write("applied\n");
    return 0;
  } catch (error) {
    if (error instanceof BrandFileError) {
      err.write(`${error.problems.join("\n")}\n`);
      return 2;
    }
    if (error instanceof ApplyError) {
      err.write(`answerwatch: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}

export function runExportCommand(args: string[], deps: { sqlite: Database }, out: Out = process.stdout, err: Out = process.stderr): number {
  const [what, slug, ...rest] = args;
  const orgAt = rest.indexOf("--org");
  if (what !== "brand" || !slug || (orgAt >= 0 && !rest[orgAt + 1])) {
    err.write("usage: answerwatch export brand SLUG [--org ORGANIZATION]\n");
    return 2;
  }
  try {
    out.write(brandFileText(exportBrandFile(deps.sqlite, slug, orgAt >= 0 ? rest[orgAt + 1] : undefined)));
    return 0;
  } catch (error) {
    if (error instanceof ApplyError) {
      err.write(`answerwatch: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}

export function runBrandsCommand(deps: { sqlite: Database }, out: Out = process.stdout): number {
  const rows = deps.sqlite
    .query("SELECT o.name AS organization, b.slug, b.name, b.is_active, (SELECT count(*) FROM prompts p WHERE p.brand_id = b.id AND p.is_active = 1) AS prompts FROM brands b JOIN organizations o ON o.id = b.organization_id ORDER BY o.name, b.slug")
    .all() as { organization: string; slug: string; name: string; is_active: number; prompts: number }[];
  if (!rows.length) out.write("no brands yet: answerwatch apply brand.yaml, or the web app's onboarding\n");
  for (const r of rows) out.write(`${r.organization}\t${r.slug}\t${r.name}\t${r.prompts} prompt(s)${r.is_active ? "" : "\tinactive"}\n`);
  return 0;
}

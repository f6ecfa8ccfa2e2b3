// The setup commands: apply a brand file (printing the plan first; --dry-run stops there), export a
// brand as that file, list brands.
import { terminalSafe } from "../common/terminal";
import { readFileSync } from "node:fs";
import { ApplyError, applyBrandFile, exportBrandFile } from "./apply";
import { BrandFileError, brandFileText, parseBrandFile } from "./brand-file";
import type { SetupStore } from "./store";

type Out = { write(text: string): void };

export async function runApplyCommand(args: string[], deps: { store: SetupStore; platforms: string[] }, out: Out = process.stdout, err: Out = process.stderr): Promise<number> {
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
    const { changes } = await applyBrandFile(deps.store, file, { dryRun: true });
    if (!changes.length) {
      out.write(`${file.brand.slug}: no changes\n`);
      return 0;
    }
    out.write(`${file.brand.slug}: ${changes.length} change(s)${dryRun ? " (dry run: nothing applied)" : ""}\n${changes.map((c) => `  ${c.kind} ${terminalSafe(c.what)}`).join("\n")}\n`);
    if (dryRun) return 0;
    await applyBrandFile(deps.store, file);
    out.write("applied\n");
    return 0;
  } catch (error) {
    if (error instanceof BrandFileError) {
      err.write(`${error.problems.join("\n")}\n`);
      return 2;
    }
    if (error instanceof ApplyError) {
      err.write(`answerwatch: ${terminalSafe(error.message)}\n`);
      return 2;
    }
    throw error;
  }
}

export async function runExportCommand(args: string[], deps: { store: SetupStore }, out: Out = process.stdout, err: Out = process.stderr): Promise<number> {
  const [what, slug, ...rest] = args;
  const orgAt = rest.indexOf("--org");
  if (what !== "brand" || !slug || (orgAt >= 0 && !rest[orgAt + 1])) {
    err.write("usage: answerwatch export brand SLUG [--org ORGANIZATION]\n");
    return 2;
  }
  try {
    out.write(brandFileText(await exportBrandFile(deps.store, slug, orgAt >= 0 ? rest[orgAt + 1] : undefined)));
    return 0;
  } catch (error) {
    if (error instanceof ApplyError) {
      err.write(`answerwatch: ${terminalSafe(error.message)}\n`);
      return 2;
    }
    throw error;
  }
}

export async function runBrandsCommand(deps: { store: SetupStore }, out: Out = process.stdout): Promise<number> {
  const rows = await deps.store.listBrands();
  if (!rows.length) out.write("no brands yet: answerwatch apply brand.yaml, or the web app's onboarding\n");
  for (const r of rows) out.write(`${terminalSafe(r.organization)}\t${r.slug}\t${terminalSafe(r.name)}\t${r.prompts} prompt(s)${r.is_active ? "" : "\tinactive"}\n`);
  return 0;
}

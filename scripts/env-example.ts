// Writes .env.example from the documented core variables and the engines' own list, so the
// file cannot drift from the code (tests/foundation/env-example.test.ts checks it).
import { CORE_VARIABLES } from "../src/config";
import { engineVariables } from "../src/engines/config";

export function renderEnvExample(): string {
  const lines = ["# answerwatch configuration. Every variable is optional; defaults are shown.", ""];
  const section = (title: string, rows: { name: string; default: string; meaning: string }[]) => {
    lines.push(`# ---- ${title} ----`);
    for (const row of rows) lines.push(`# ${row.meaning}`, `#${row.name}=${row.default}`);
    lines.push("");
  };
  section("server", CORE_VARIABLES);
  section("AI engines", engineVariables());
  return lines.join("\n");
}

if (import.meta.main) {
  await Bun.write(new URL("../.env.example", import.meta.url).pathname, renderEnvExample());
  console.log(".env.example written");
}

// What the CLI prints from the database reaches an operator's terminal: a brand named with an escape
// sequence (OSC 52 sets the clipboard, CSI rewrites lines) by any member must not run there.
import { expect, test } from "bun:test";
import { runBrandsCommand } from "../../src/setup/cli";
import type { SetupStore } from "../../src/setup/store";

test("answerwatch brands prints names and organizations with their control characters and bidi overrides replaced", async () => {
  const rows = [{ organization: "Org\u202eevil", slug: "acme", name: "\u001b]52;c;ZWNobyBwd25lZA==\u0007Acme\u001b[2K", prompts: 3, is_active: 1 }];
  let printed = "";
  await runBrandsCommand({ store: { listBrands: async () => rows } as unknown as SetupStore }, { write: (text: string) => void (printed += text) });
  expect(printed).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
  expect(printed).toBe("Org\ufffdevil\tacme\t\ufffd]52;c;ZWNobyBwd25lZA==\ufffdAcme\ufffd[2K\t3 prompt(s)\n");
});

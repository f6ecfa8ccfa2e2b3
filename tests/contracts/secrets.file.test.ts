import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFileSecretStore } from "../../src/secrets";
import { describeSecretStoreContract } from "./secrets.contract";

// The file store needs no database: a temporary DATA_DIR per case.
describeSecretStoreContract("file", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "aw-secrets-"));
  return {
    store: createFileSecretStore({ dataDir, secrets: {} }),
    open: (secrets = {}) => createFileSecretStore({ dataDir, secrets }),
    close: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
});

// The secret store on Postgres: one row of answerwatch_secrets shared by every instance. The first
// instance to start generates the secrets; the row lock makes the others wait and read the same.
import type { SQL } from "bun";
import { deriveSecrets, type SecretStore, type StoredSecrets } from "./secrets";
import type { Config } from "./config";

export function createPgSecretStore(sql: SQL, config: Pick<Config, "secrets">): SecretStore {
  return {
    ensure() {
      return sql.begin(async (tx) => {
        // The row exists before it is locked, so two first starts serialise on it.
        await tx`INSERT INTO answerwatch_secrets (id, stored) VALUES (1, '{}'::jsonb) ON CONFLICT (id) DO NOTHING`;
        const [{ stored }] = await tx`SELECT stored FROM answerwatch_secrets WHERE id = 1 FOR UPDATE`;
        const { secrets, next } = await deriveSecrets(stored as StoredSecrets, config);
        if (JSON.stringify(next) !== JSON.stringify(stored)) await tx`UPDATE answerwatch_secrets SET stored = ${next}, updated_at = now() WHERE id = 1`;
        return secrets;
      });
    },
  };
}

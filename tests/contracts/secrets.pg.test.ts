import { createPgSecretStore } from "../../src/secrets.pg";
import { openPostgresDatabase } from "../../src/database";
import { testPostgres } from "../helpers/postgres";
import { describeSecretStoreContract } from "./secrets.contract";

// Each case gets a database of its own: the secrets are one row per deployment.
const server = await testPostgres();
if (server)
  describeSecretStoreContract("postgres", async () => {
    const pg = await openPostgresDatabase(await server.createDatabase("secrets"), { poolSize: 4 });
    return {
      store: createPgSecretStore(pg.sql, { secrets: {} }),
      open: (secrets = {}) => createPgSecretStore(pg.sql, { secrets }),
      close: () => pg.close(),
    };
  });

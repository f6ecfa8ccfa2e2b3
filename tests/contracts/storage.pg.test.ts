import { createPgStorageStore } from "../../src/storage/store.pg";
import { describeStorageStoreContract } from "./storage.contract";
import { pgHarness } from "./harness.pg";

const h = await pgHarness();
if (h) describeStorageStoreContract("postgres", async () => ({ ...h, store: createPgStorageStore(h.pg.sql) }));

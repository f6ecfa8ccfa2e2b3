import { SQL } from "bun";
import { createPgMailStore } from "../../src/mail/store.pg";
import { describeMailStoreContract } from "./mail.contract";
import { pgHarness } from "./harness.pg";

const h = await pgHarness();
if (h)
  describeMailStoreContract("postgres", async () => {
    // A second pool on the same database: the race case claims over two, as two instances would.
    const second = new SQL(h.url, { max: 4 });
    const close = async () => {
      await second.close();
      await h.close();
    };
    return { ...h, store: createPgMailStore(h.pg.sql), other: createPgMailStore(second), close };
  });

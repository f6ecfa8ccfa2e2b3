// The crawler ingest as the server and the CLI both build it: the verifier (with reverse DNS when
// VERIFY_RDNS is on) and the record key derived from the server's secret.
import { resolve4, resolve6, reverse } from "node:dns/promises";
import { createCrawlerIngest } from "./ingest";
import type { CrawlerStore } from "./store";
import { createVerifier, type Resolver } from "./verify";

export const systemResolver: Resolver = {
  reverse: (ip) => reverse(ip),
  forward: async (host) => [...(await resolve4(host).catch(() => [] as string[])), ...(await resolve6(host).catch(() => [] as string[]))],
};

export function crawlerIngestFor(deps: { store: CrawlerStore; jwtSecret: string; verifyRdns: boolean; resolver?: Resolver; now?: () => Date; onEvents?: () => void }) {
  const verifier = createVerifier({ rdns: deps.verifyRdns ? (deps.resolver ?? systemResolver) : null });
  return createCrawlerIngest({ store: deps.store, verifier, recordSecret: `crawler-records:${deps.jwtSecret}`, now: deps.now, onEvents: deps.onEvents });
}

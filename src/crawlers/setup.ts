// The crawler ingest as the server and the CLI both build it: the verifier (with reverse DNS when
// VERIFY_RDNS is on) and the record key derived from the server's secret.
import { resolve4, resolve6, reverse } from "node:dns/promises";
import { logRetentionStart } from "../storage/maintenance";
import { createCrawlerIngest } from "./ingest";
import type { CrawlerStore } from "./store";
import { createVerifier, isNoRecord, type Resolver } from "./verify";

export const systemResolver: Resolver = {
  reverse: (ip) => reverse(ip),
  // A family without records adds no address; a failed lookup leaves the address unchecked (verify.ts).
  forward: async (host) => {
    const family = (ask: (host: string) => Promise<string[]>) => ask(host).catch((error) => (isNoRecord(error) ? [] : Promise.reject(error)));
    return [...(await family(resolve4)), ...(await family(resolve6))];
  },
};

/** `retentionMonths`: LOG_RETENTION_MONTHS (0: every month kept). */
export function crawlerIngestFor(deps: { store: CrawlerStore; jwtSecret: string; verifyRdns: boolean; retentionMonths?: number; maxPaths?: number; resolver?: Resolver; now?: () => Date; onEvents?: () => void }) {
  const verifier = createVerifier({ rdns: deps.verifyRdns ? (deps.resolver ?? systemResolver) : null });
  const months = deps.retentionMonths ?? 0;
  return createCrawlerIngest({ store: deps.store, verifier, recordSecret: `crawler-records:${deps.jwtSecret}`, now: deps.now, onEvents: deps.onEvents, maxPaths: deps.maxPaths, keptFrom: months > 0 ? (now) => logRetentionStart(now, months) : undefined });
}

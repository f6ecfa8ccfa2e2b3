// Prometheus metrics (issue #20) with prom-client: counters and histograms fed by the request
// handler, the dispatcher, the pixel and the reader pool, and gauges read from the database when
// scraped. Routes are labelled by the pattern they matched (unknown paths as one label, methods from
// a fixed set), so an attacker's random URLs cannot grow the label set.
import type { StatusCounts, StatusStore } from "./status-store";
import { Counter, Gauge, Histogram, Registry } from "prom-client";

const APP_PREFIXES = ["/b/", "/login", "/signup", "/onboarding", "/account"];
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
/** The one label of every path no route names (and of every 404). */
export const OTHER_ROUTE = "other";

export type RouteLabeler = (pathname: string, status: number) => string;

/**
 * Labels a request by the route pattern it matched, never by a value the client chose, so the label
 * set is bounded by the app's own routes: `patterns` are the app's route paths (`:param`, `*`), and
 * under /rest/v1 only `restNames` (exposed tables and functions) keep their name.
 */
export function createRouteLabeler(patterns: readonly string[], restNames: ReadonlySet<string>): RouteLabeler {
  const compiled = [...new Set(patterns)]
    .filter((p) => p !== "*" && p !== "/*" && !p.startsWith("/rest/v1"))
    // Exact paths first, then patterns with parameters, then wildcards.
    .map((p) => ({ label: p, rank: p.includes("*") ? 2 : p.includes(":") ? 1 : 0, re: new RegExp(`^${p.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/:[^/]+/g, "[^/]+").replace(/\*/g, ".*")}/?$`) }))
    .sort((a, b) => a.rank - b.rank);
  return (pathname, status) => {
    if (status === 404) return OTHER_ROUTE;
    if (pathname === "/" || APP_PREFIXES.some((p) => pathname.startsWith(p))) return "(web app)";
    if (/^\/[^/]+-[a-z0-9]+\.(js|css)$/.test(pathname)) return "(web asset)";
    if (pathname.startsWith("/rest/v1/")) {
      const m = /^\/rest\/v1\/(rpc\/)?([^/]+)$/.exec(pathname);
      return m && restNames.has(m[2]!) ? `/rest/v1/${m[1] ?? ""}${m[2]}` : "/rest/v1/*";
    }
    return compiled.find((c) => c.re.test(pathname))?.label ?? OTHER_ROUTE;
  };
}

/** A method label from a fixed set: a client may send any token as its method. */
export const methodLabel = (method: string) => (METHODS.has(method) ? method : "OTHER");

export function createMetrics() {
  const registry = new Registry();
  const seconds = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
  const requests = new Counter({ name: "answerwatch_http_requests_total", help: "HTTP requests by route pattern, method and status", labelNames: ["route", "method", "status"], registers: [registry] });
  const latency = new Histogram({ name: "answerwatch_http_request_duration_seconds", help: "HTTP request latency by route pattern and method", labelNames: ["route", "method"], buckets: seconds, registers: [registry] });
  const beacons = new Counter({ name: "answerwatch_beacons_total", help: "Pixel beacons (POST /t/collect) accepted (204) or refused (4xx)", labelNames: ["outcome"], registers: [registry] });
  const upstream = new Counter({ name: "answerwatch_upstream_calls_total", help: "Calls to AI engines by platform and outcome (answered, or the error kind)", labelNames: ["platform", "outcome"], registers: [registry] });
  const upstreamLatency = new Histogram({ name: "answerwatch_upstream_call_duration_seconds", help: "Time from a unit's start to its engine's answer, by platform", labelNames: ["platform"], buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 60, 120], registers: [registry] });
  const readerWait = new Histogram({ name: "answerwatch_reader_pool_wait_seconds", help: "Time a /rest/v1 read, RPC or report waited for a reader thread (on Postgres: for its turn, REST_READERS at a time)", buckets: [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5], registers: [registry] });
  // The gauges are set from one read of the status store per scrape (text()), not one query each.
  let status: StatusStore | undefined;
  const jobs = new Gauge({ name: "answerwatch_jobs", help: "Tracking jobs by state", labelNames: ["state"], registers: [registry] });
  const units = new Gauge({ name: "answerwatch_job_units", help: "Units of the waiting and running jobs by state", labelNames: ["state"], registers: [registry] });
  const depth = new Gauge({ name: "answerwatch_queue_depth", help: "Units still to run: pending units of waiting and running jobs", registers: [registry] });
  const deliveries = new Gauge({ name: "answerwatch_webhook_deliveries", help: "Webhook deliveries by state", labelNames: ["state"], registers: [registry] });
  const databaseBytes = new Gauge({ name: "answerwatch_database_bytes", help: "Size of the SQLite database (pages × page size)", registers: [registry] });
  function setGauges(c: StatusCounts): void {
    for (const [gauge, rows] of [[jobs, c.jobs], [units, c.activeUnits], [deliveries, c.deliveries]] as const) {
      gauge.reset();
      for (const r of rows) gauge.set({ state: r.status }, r.n);
    }
    depth.set(c.queueDepth);
    databaseBytes.set(c.databaseBytes);
  }

  return {
    registry,
    /** Where the gauges are read from when scraped. */
    useStatus(store: StatusStore) {
      status = store;
    },
    /** `route` is the request's pattern label (createRouteLabeler). */
    request(pathname: string, route: string, rawMethod: string, status: number, durationMs: number) {
      const method = methodLabel(rawMethod);
      requests.inc({ route, method, status: String(status) });
      latency.observe({ route, method }, durationMs / 1000);
      if (pathname === "/t/collect" && method === "POST") beacons.inc({ outcome: status < 300 ? "accepted" : "refused" });
    },
    upstreamCall(platform: string, outcome: string, durationMs: number) {
      upstream.inc({ platform, outcome });
      upstreamLatency.observe({ platform }, durationMs / 1000);
    },
    readerWait(ms: number) {
      readerWait.observe(ms / 1000);
    },
    async text() {
      if (status) setGauges(await status.counts());
      return registry.metrics();
    },
    contentType: registry.contentType,
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

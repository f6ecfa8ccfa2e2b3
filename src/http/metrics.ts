// Prometheus metrics (issue #20) with prom-client: counters and histograms fed by the request
// handler, the dispatcher, the pixel and the reader pool, and gauges read from the database when
// scraped. Routes are labelled by their pattern (ids as :id, unknown paths as one label), so an
// attacker's random URLs cannot grow the label set.
import type { Database } from "bun:sqlite";
import { Counter, Gauge, Histogram, Registry } from "prom-client";

const UUID_OR_NUMBER = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\d+)$/i;
const APP_PREFIXES = ["/b/", "/login", "/signup", "/onboarding", "/account"];

/** A route's label: its prefix and pattern, never a value a client chose. */
export function routeLabel(pathname: string, status: number): string {
  if (status === 404) return "(unmatched)";
  if (pathname === "/" || APP_PREFIXES.some((p) => pathname.startsWith(p))) return "(web app)";
  if (/^\/[^/]+-[a-z0-9]+\.(js|css)$/.test(pathname)) return "(web asset)";
  const parts = pathname.split("/").filter(Boolean).slice(0, 4).map((p) => (UUID_OR_NUMBER.test(p) ? ":id" : p));
  // /rest/v1/<table> and /rest/v1/rpc/<function> exist in the schema (a 404 was caught above).
  return `/${parts.join("/")}`;
}

export function createMetrics() {
  const registry = new Registry();
  const seconds = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
  const requests = new Counter({ name: "answerwatch_http_requests_total", help: "HTTP requests by route pattern, method and status", labelNames: ["route", "method", "status"], registers: [registry] });
  const latency = new Histogram({ name: "answerwatch_http_request_duration_seconds", help: "HTTP request latency by route pattern and method", labelNames: ["route", "method"], buckets: seconds, registers: [registry] });
  const beacons = new Counter({ name: "answerwatch_beacons_total", help: "Pixel beacons (POST /t/collect) accepted (204) or refused (4xx)", labelNames: ["outcome"], registers: [registry] });
  const upstream = new Counter({ name: "answerwatch_upstream_calls_total", help: "Calls to AI engines by platform and outcome (answered, or the error kind)", labelNames: ["platform", "outcome"], registers: [registry] });
  const upstreamLatency = new Histogram({ name: "answerwatch_upstream_call_duration_seconds", help: "Time from a unit's start to its engine's answer, by platform", labelNames: ["platform"], buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 60, 120], registers: [registry] });
  const readerWait = new Histogram({ name: "answerwatch_reader_pool_wait_seconds", help: "Time a /rest/v1 read, RPC or report waited for a reader thread", buckets: [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5], registers: [registry] });
  let sqlite: Database | undefined;
  const rows = <T>(sql: string) => (sqlite ? (sqlite.query(sql).all() as T[]) : []);
  new Gauge({
    name: "answerwatch_jobs",
    help: "Tracking jobs by state",
    labelNames: ["state"],
    registers: [registry],
    collect() {
      this.reset();
      for (const r of rows<{ status: string; n: number }>("SELECT status, count(*) AS n FROM jobs GROUP BY status")) this.set({ state: r.status }, r.n);
    },
  });
  new Gauge({
    name: "answerwatch_job_units",
    help: "Units of the waiting and running jobs by state",
    labelNames: ["state"],
    registers: [registry],
    collect() {
      this.reset();
      for (const r of rows<{ status: string; n: number }>("SELECT u.status, count(*) AS n FROM jobs AS j JOIN job_units AS u ON u.job_id = j.id WHERE j.status IN ('waiting', 'active') GROUP BY u.status"))
        this.set({ state: r.status }, r.n);
    },
  });
  new Gauge({
    name: "answerwatch_queue_depth",
    help: "Units still to run: pending units of waiting and running jobs",
    registers: [registry],
    collect() {
      this.set(rows<{ n: number }>("SELECT count(*) AS n FROM jobs AS j JOIN job_units AS u ON u.job_id = j.id WHERE j.status IN ('waiting', 'active') AND u.status = 'pending'")[0]?.n ?? 0);
    },
  });
  new Gauge({
    name: "answerwatch_webhook_deliveries",
    help: "Webhook deliveries by state",
    labelNames: ["state"],
    registers: [registry],
    collect() {
      this.reset();
      for (const r of rows<{ status: string; n: number }>("SELECT status, count(*) AS n FROM webhook_deliveries GROUP BY status")) this.set({ state: r.status }, r.n);
    },
  });
  new Gauge({
    name: "answerwatch_database_bytes",
    help: "Size of the SQLite database (pages × page size)",
    registers: [registry],
    collect() {
      const r = rows<{ bytes: number }>("SELECT page_count * page_size AS bytes FROM pragma_page_count(), pragma_page_size()")[0];
      this.set(r?.bytes ?? 0);
    },
  });

  return {
    registry,
    /** The database the gauges read when scraped. */
    useDatabase(db: Database) {
      sqlite = db;
    },
    request(pathname: string, method: string, status: number, durationMs: number) {
      const route = routeLabel(pathname, status);
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
    text: () => registry.metrics(),
    contentType: registry.contentType,
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

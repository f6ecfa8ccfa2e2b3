// Durable delivery of webhook events (issue 9): pending deliveries live in SQLite, are claimed with
// a lease (next_at moved past the send time-out), sent signed, and retried on a fixed schedule.
// A process killed between attempts picks them up again when it restarts.
import type { Database } from "bun:sqlite";
import type { Logger } from "../http/log";
import { checkDestinationUrl, DestinationError, pinnedRequest, resolveDestination, systemResolver, type PinnedDestination, type Resolver } from "./destination";
import { eventPayload } from "./events";
import { signatureHeaders } from "./signing";

export interface DelivererOptions {
  sqlite: Database;
  logger: Logger;
  allowPrivate: boolean;
  /** Waits after the 1st, 2nd, … failed attempt; after the last one the delivery is failed. */
  retryScheduleMs: number[];
  timeoutMs: number;
  now?: () => Date;
  fetch?: typeof fetch;
  /** Host name → addresses; the system resolver by default (tests pass a stub). */
  resolve?: Resolver;
  pollMs?: number;
  concurrency?: number;
}

interface Claimed {
  id: string;
  endpoint_id: string;
  event_id: string;
  attempts: number;
  url: string;
  secret: string;
  is_active: number;
  type: string;
  organization_id: string;
  brand_id: string | null;
  payload: string;
  event_created_at: string;
}

/** The promise, or the signal's reason once it fires (a resolver that hangs must not hold a delivery past its time-out). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener("abort", abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
  });
}

// Connection errors after which nothing was sent, so the next checked address can be tried without a double delivery.
const NOT_CONNECTED = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL", "ConnectionRefused"]);

/** Sends to the pinned addresses in order, moving on only when a connection could not be made. */
async function sendPinned(target: PinnedDestination, send: (request: ReturnType<typeof pinnedRequest>) => Promise<Response>): Promise<Response> {
  for (const [i, address] of target.addresses.entries()) {
    try {
      return await send(pinnedRequest(target.url, address));
    } catch (error) {
      if (i === target.addresses.length - 1 || !NOT_CONNECTED.has(String((error as { code?: unknown })?.code))) throw error;
    }
  }
  throw new Error("no address to send to");
}

export function createDeliverer(options: DelivererOptions) {
  const { sqlite, logger } = options;
  const now = options.now ?? (() => new Date());
  const doFetch = options.fetch ?? fetch;
  const resolve = options.resolve ?? systemResolver;
  const concurrency = options.concurrency ?? 8;
  const leaseMs = options.timeoutMs + 30_000;
  const iso = (offsetMs = 0) => new Date(now().getTime() + offsetMs).toISOString();
  const pollMs = options.pollMs ?? 1000;
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let inFlight = 0;
  let stopped = false;
  const running = new Set<Promise<void>>();

  const q = {
    // A read first: an UPDATE takes the database's write lock even when it matches nothing, and
    // the deliverer polls every second.
    due: sqlite.prepare(`SELECT EXISTS (SELECT 1 FROM webhook_deliveries WHERE status = 'pending' AND next_at <= ?1) AS due`),
    claim: sqlite.prepare(
      `UPDATE webhook_deliveries SET next_at = ?1, updated_at = ?2
       WHERE id IN (SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_at <= ?2 ORDER BY next_at LIMIT ?3)
       RETURNING id`,
    ),
    details: sqlite.prepare(
      `SELECT d.id, d.endpoint_id, d.event_id, d.attempts, e.url, e.secret, e.is_active, v.type, v.organization_id, v.brand_id,
              v.payload, v.created_at AS event_created_at
       FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id JOIN webhook_events v ON v.id = d.event_id
       WHERE d.id = ?`,
    ),
    record: sqlite.prepare(
      `UPDATE webhook_deliveries SET status = ?2, attempts = ?3, next_at = ?4, last_status = ?5, last_error = ?6, duration_ms = ?7, updated_at = ?8
       WHERE id = ?1`,
    ),
    disable: sqlite.prepare("UPDATE webhook_endpoints SET is_active = 0, updated_at = ? WHERE id = ?"),
  };

  async function deliver(d: Claimed): Promise<void> {
    const attempts = d.attempts + 1;
    const started = performance.now();
    let status: number | null = null;
    let error: string | null = null;
    let outcome: "delivered" | "retry" | "failed" | "gone" = "retry";
    try {
      if (!d.is_active) throw new DestinationError("the endpoint is disabled");
      const signal = AbortSignal.timeout(options.timeoutMs);
      const url = checkDestinationUrl(d.url, options.allowPrivate);
      // One lookup, checked, then the socket goes to an address that was checked: fetch never
      // resolves the name again, so DNS cannot answer differently (rebinding) between check and send.
      const target = await untilAborted(resolveDestination(url, { allowPrivate: options.allowPrivate, resolve }), signal);
      const body = JSON.stringify(eventPayload({ id: d.event_id, type: d.type, created_at: d.event_created_at, organization_id: d.organization_id, brand_id: d.brand_id, data: JSON.parse(d.payload) }));
      const headers = { "content-type": "application/json", "user-agent": "answerwatch-webhooks/1", ...signatureHeaders(d.secret, d.event_id, Math.floor(now().getTime() / 1000), body) };
      const response = await sendPinned(target, (request) =>
        doFetch(request.url, {
          method: "POST",
          // Redirects are not followed: a 3xx is an answer, and following it could reach a private address.
          redirect: "manual",
          signal,
          // The receiver sees its own name in Host, SNI and the certificate check, not the address.
          ...(request.tls ? { tls: request.tls } : {}),
          headers: { host: request.host, ...headers },
          body,
        }),
      );
      status = response.status;
      await response.arrayBuffer().catch(() => undefined);
      if (status >= 200 && status < 300) outcome = "delivered";
      else if (status === 410) outcome = "gone";
      else error = `answered ${status}`;
    } catch (e) {
      error = e instanceof Error ? (e.name === "TimeoutError" ? `no answer within ${options.timeoutMs} ms` : e.message) : String(e);
      if (e instanceof DestinationError) outcome = "failed";
    }
    const durationMs = Math.round(performance.now() - started);
    if (outcome === "retry" && attempts > options.retryScheduleMs.length) outcome = "failed";
    const at = iso();
    if (outcome === "gone") {
      // 410 Gone is the receiver saying "stop": the endpoint is disabled, as Standard Webhooks suggests.
      sqlite.transaction(() => {
        q.record.run(d.id, "failed", attempts, null, status, "endpoint answered 410 Gone and was disabled", durationMs, at);
        q.disable.run(at, d.endpoint_id);
      }).immediate();
    } else if (outcome === "retry") {
      const waitMs = options.retryScheduleMs[attempts - 1]!;
      q.record.run(d.id, "pending", attempts, iso(waitMs), status, error, durationMs, at);
      // Waits shorter than the poll are kept to the millisecond, not rounded up to the next poll.
      if (waitMs < pollMs) {
        const t = setTimeout(() => {
          timers.delete(t);
          pump();
        }, waitMs + 1);
        timers.add(t);
      }
    } else {
      q.record.run(d.id, outcome, attempts, null, status, error, durationMs, at);
    }
    logger.info("webhook delivery", { delivery_id: d.id, type: d.type, outcome, status, attempts, duration_ms: durationMs });
  }

  function pump() {
    if (stopped) return;
    const room = concurrency - inFlight;
    if (room <= 0) return;
    let ids: { id: string }[];
    try {
      const at = iso();
      if ((q.due.get(at) as { due: number }).due === 0) return;
      ids = q.claim.all(iso(leaseMs), at, room) as { id: string }[];
    } catch (error) {
      logger.error("webhook claim failed", { error: String(error) });
      return;
    }
    for (const { id } of ids) {
      const d = q.details.get(id) as Claimed | null;
      if (!d) continue;
      inFlight++;
      const p = deliver(d)
        .catch((error) => logger.error("webhook delivery crashed", { delivery_id: id, error: String(error) }))
        .finally(() => {
          inFlight--;
          running.delete(p);
          pump();
        });
      running.add(p);
    }
  }

  const timer = setInterval(pump, pollMs);
  queueMicrotask(pump);

  return {
    wake: () => queueMicrotask(pump),
    async stop() {
      stopped = true;
      clearInterval(timer);
      timers.forEach(clearTimeout);
      // In-flight sends finish (bounded by their time-out) so none is left half-recorded.
      await Promise.allSettled([...running]);
    },
  };
}

export type Deliverer = ReturnType<typeof createDeliverer>;

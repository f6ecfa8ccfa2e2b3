// Durable delivery of webhook events (issue 9): pending deliveries live in the database, are claimed with
// a lease (next_at moved past the send time-out), sent signed, and retried on a fixed schedule.
// A process killed between attempts picks them up again when it restarts.
import type { Logger } from "../http/log";
import { checkDestinationUrl, DestinationError, pinnedRequest, resolveDestination, systemResolver, type PinnedDestination, type Resolver } from "./destination";
import { chatMessage } from "./chat";
import { eventPayload } from "./events";
import { signatureHeaders } from "./signing";
import type { ClaimedDelivery, WebhookStore } from "./store";

export interface DelivererOptions {
  store: Pick<WebhookStore, "claimDue" | "finishDelivery">;
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
  /** Deliveries of one organization in flight at once (default a quarter of `concurrency`). */
  perOrganization?: number;
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
  const { store, logger } = options;
  const now = options.now ?? (() => new Date());
  const doFetch = options.fetch ?? fetch;
  const resolve = options.resolve ?? systemResolver;
  const concurrency = options.concurrency ?? 8;
  // One organization's share of the slots (its endpoints may never answer, each attempt holding a
  // slot for the whole timeout): a quarter, at least one.
  const perOrganization = options.perOrganization ?? Math.max(1, Math.floor(concurrency / 4));
  const busy = new Map<string, number>();
  const took = (organization: string | null, delta: number) => {
    if (organization === null) return;
    const n = (busy.get(organization) ?? 0) + delta;
    if (n > 0) busy.set(organization, n);
    else busy.delete(organization);
  };
  const leaseMs = options.timeoutMs + 30_000;
  const iso = (offsetMs = 0) => new Date(now().getTime() + offsetMs).toISOString();
  const pollMs = options.pollMs ?? 1000;
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let inFlight = 0;
  let stopped = false;
  const running = new Set<Promise<void>>();

  async function deliver(d: ClaimedDelivery, leaseUntil: string): Promise<void> {
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
      const data = JSON.parse(d.payload);
      // A chat endpoint gets the message it can show; the signature headers are sent all the same.
      const body = JSON.stringify(d.format === "slack" ? chatMessage(d.type, data) : eventPayload({ id: d.event_id, type: d.type, created_at: d.event_created_at, organization_id: d.organization_id, brand_id: d.brand_id, data }));
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
      // The status is the answer; the body is never read — a receiver's endless or compressed-bomb
      // body would otherwise hold the delivery (and its memory) until the timeout.
      await response.body?.cancel().catch(() => undefined);
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
    const finish = { id: d.id, leaseUntil, attempts, lastStatus: status, durationMs, at };
    if (outcome === "gone") {
      // 410 Gone is the receiver saying "stop": the endpoint is disabled, as Standard Webhooks suggests.
      await store.finishDelivery({ ...finish, status: "failed", nextAt: null, lastError: "endpoint answered 410 Gone and was disabled", disableEndpoint: d.endpoint_id });
    } else if (outcome === "retry") {
      const waitMs = options.retryScheduleMs[attempts - 1]!;
      await store.finishDelivery({ ...finish, status: "pending", nextAt: iso(waitMs), lastError: error });
      // Waits shorter than the poll are kept to the millisecond, not rounded up to the next poll.
      if (waitMs < pollMs) {
        const t = setTimeout(() => {
          timers.delete(t);
          pump();
        }, waitMs + 1);
        timers.add(t);
      }
    } else {
      await store.finishDelivery({ ...finish, status: outcome, nextAt: null, lastError: error });
    }
    logger.info("webhook delivery", { delivery_id: d.id, type: d.type, outcome, status, attempts, duration_ms: durationMs });
  }

  function pump() {
    if (stopped) return;
    const room = concurrency - inFlight;
    if (room <= 0) return;
    // The room is taken while the claim is under way, so a pump started meanwhile cannot claim past the concurrency.
    inFlight += room;
    const p = claimAndSend(room).finally(() => running.delete(p));
    running.add(p);
  }

  async function claimAndSend(room: number): Promise<void> {
    const at = iso();
    const leaseUntil = iso(leaseMs);
    let claimed: ClaimedDelivery[];
    try {
      claimed = await store.claimDue({ now: at, leaseUntil, limit: room, perOrganization, busy: Object.fromEntries(busy) });
    } catch (error) {
      inFlight -= room;
      logger.error("webhook claim failed", { error: String(error) });
      return;
    }
    inFlight -= room - claimed.length;
    for (const d of claimed) {
      took(d.organization_id, 1);
      const p = deliver(d, leaseUntil)
        .catch((error) => logger.error("webhook delivery crashed", { delivery_id: d.id, error: String(error) }))
        .finally(() => {
          took(d.organization_id, -1);
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
      // A claim under way adds its sends to `running` when it settles.
      while (running.size) await Promise.allSettled([...running]);
    },
  };
}

export type Deliverer = ReturnType<typeof createDeliverer>;

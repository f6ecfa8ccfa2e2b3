// Request bodies read with a cap on what they become, not only on what was sent: a compressed body
// is inflated as a stream, split into lines as it arrives and abandoned the moment its output passes
// a cap. A small gzip bomb costs at most one chunk and one line in memory, never the whole output,
// and the thread goes back to the event loop between chunks.
import { cappedLines, OVERLONG } from "../common/lines";
import { AppError } from "./errors";

export interface LineCaps {
  /** Bytes the body may inflate to (413 past it). */
  maxBytes: number;
  /** Non-empty lines it may hold (413 past it). */
  maxLines: number;
  /** A longer line is skipped and counted in `overlong`, never held. */
  maxLineBytes: number;
  /**
   * The whole body must arrive within this (408 past it): a client sending a byte every few
   * seconds would otherwise hold its place (and a reader's slot) for as long as it likes.
   */
  deadlineMs?: number;
}

const INFLATE_SLICE = 1024;
const YIELD_EVERY_LINES = 250;

const tooLarge = (limit: number) => new AppError(413, "payload_too_large", `The request body inflates to more than ${limit} bytes`, { details: `The limit is ${limit} bytes.` });
/** A body larger than the server's MAX_BODY_BYTES. */
export const bodyTooLarge = (limit: number) => new AppError(413, "payload_too_large", `The request body is larger than ${limit} bytes`);
const tooMany = (limit: number) => new AppError(413, "too_many_records", `At most ${limit} records a request`, { details: `The limit is ${limit} records.` });

/** The body's bytes, inflated when they start with gzip's magic bytes, counted against `maxBytes` as they pass. */
async function inflatedBody(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<{ stream: ReadableStream<Uint8Array>; gzip: boolean }> {
  const raw = body.getReader();
  const first = await raw.read();
  const head = first.done ? new Uint8Array(0) : first.value;
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      if (head.byteLength) controller.enqueue(head);
      if (first.done) controller.close();
    },
    async pull(controller) {
      const { value, done } = await raw.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => raw.cancel(reason),
  });
  const gzip = head[0] === 0x1f && head[1] === 0x8b;
  // The inflater turns one input chunk into all of its output at once: fed 1 KiB at a time (at most
  // ~1 MiB of output at deflate's highest ratio), it can be stopped right after the cap. (Only then
  // piped: a stream piped once is locked, and plain text read from `source` again failed with 500.)
  const sliced = () =>
    source.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          for (let at = 0; at < chunk.byteLength; at += INFLATE_SLICE) controller.enqueue(chunk.subarray(at, at + INFLATE_SLICE));
        },
      }),
    );
  const inflated = gzip ? sliced().pipeThrough(new DecompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>) : source;
  let total = 0;
  const counted = inflated.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        total += chunk.byteLength;
        if (total > maxBytes) throw tooLarge(maxBytes);
        controller.enqueue(chunk);
      },
    }),
  );
  return { stream: counted, gzip };
}

/**
 * Calls `onLine` with each non-empty line of the body (inflated when gzip), in order; 413 past a
 * cap, 400 for a body that is not valid gzip. Returns how many lines were too long (skipped).
 */
export async function forEachLineCapped(request: Request, caps: LineCaps, onLine: (line: string) => void): Promise<{ overlong: number }> {
  if (!request.body) return { overlong: 0 };
  const { stream, gzip } = await inflatedBody(request.body, caps.maxBytes);
  let lines = 0;
  let overlong = 0;
  let late = false;
  const tooSlow = () => new AppError(408, "request_timeout", `The request body did not arrive within ${Math.round(caps.deadlineMs! / 1000)} s`);
  // The reader holds the stream locked; a pass-through whose controller the deadline errors makes
  // the read under way fail at once.
  let guard: TransformStreamDefaultController<Uint8Array> | undefined;
  const source = caps.deadlineMs === undefined ? stream : stream.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({ start: (controller) => void (guard = controller) }));
  const deadline = caps.deadlineMs === undefined ? undefined : setTimeout(() => ((late = true), guard?.error(tooSlow())), caps.deadlineMs);
  try {
    for await (const line of cappedLines(source, caps.maxLineBytes)) {
      if (line === OVERLONG) overlong++;
      else if (line.trim()) {
        if (++lines > caps.maxLines) throw tooMany(caps.maxLines);
        onLine(line);
        // Back to the event loop now and then: stream reads resolve as microtasks, which would
        // otherwise keep every other request (and /healthz) waiting for the whole body.
        if (lines % YIELD_EVERY_LINES === 0) await new Promise((resolve) => setImmediate(resolve));
      }
    }
  } catch (error) {
    await source.cancel().catch(() => {});
    if (late) throw tooSlow();
    if (error instanceof AppError) throw error;
    throw new AppError(400, "bad_body", gzip ? "The request body is not valid gzip" : "The request body could not be read");
  } finally {
    clearTimeout(deadline);
  }
  return { overlong };
}

/**
 * A body sent without a declared length (chunked), passed on as it is read and cut off past
 * `maxBytes`: the reader then fails, and `onOverflow` is told (a declared length is checked against
 * the cap before any byte is read). Nothing is read ahead of the route, so a route that leaves a
 * body unread while busy (crawler logs) still holds it back.
 */
export function cappedStream(body: ReadableStream<Uint8Array>, maxBytes: number, onOverflow: () => void): ReadableStream<Uint8Array> {
  let total = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        total += chunk.byteLength;
        if (total > maxBytes) {
          onOverflow();
          throw bodyTooLarge(maxBytes);
        }
        controller.enqueue(chunk);
      },
    }),
  );
}

/**
 * A whole body as text, read as it comes through cappedStream; null (the rest cancelled) once past
 * `maxBytes` — a chunked body has no length to check first, and arrayBuffer()/text() read it all.
 */
export async function textUpTo(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<string | null> {
  if (!body) return "";
  let over = false;
  try {
    return await new Response(cappedStream(body, maxBytes, () => (over = true))).text();
  } catch (error) {
    if (over) return null;
    throw error;
  }
}

// Request bodies read with a cap on what they become, not only on what was sent: a compressed body
// is inflated as a stream and abandoned the moment its output passes the cap, so a small gzip bomb
// costs at most the cap (plus one chunk) in memory and never blocks the thread for long.
import { AppError } from "./errors";

export const tooLarge = (what: string, limit: number) =>
  new AppError(413, "payload_too_large", `${what} is larger than ${limit} bytes`, { details: `The limit is ${limit} bytes.` });

/**
 * The body's bytes, inflated when they start with gzip's magic bytes, at most `maxBytes` of output
 * (413 past it). Yields to the event loop between chunks.
 */
export async function readBodyCapped(request: Request, maxBytes: number): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  // Peek at the first chunk for gzip's magic bytes, then read the rest through the inflater if so.
  const first = await reader.read();
  if (first.done) return new Uint8Array(0);
  const head = first.value;
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(head);
    },
    async pull(controller) {
      const { value, done } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  const gzip = head[0] === 0x1f && head[1] === 0x8b;
  const stream = gzip ? source.pipeThrough(new DecompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>) : source;
  const chunks: Uint8Array[] = [];
  let total = 0;
  const inflated = stream.getReader();
  try {
    for (;;) {
      const { value, done } = await inflated.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await inflated.cancel().catch(() => {});
        throw tooLarge(gzip ? "The inflated request body" : "The request body", maxBytes);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError(400, "bad_body", gzip ? "The request body is not valid gzip" : "The request body could not be read");
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/**
 * The non-empty lines of `bytes`, at most `maxLines` (413 past it); a line longer than `maxLineBytes`
 * is counted in `overlong` and skipped. Yields to the event loop every `yieldEvery` lines.
 */
export async function splitLinesCapped(bytes: Uint8Array, opts: { maxLines: number; maxLineBytes: number; yieldEvery?: number }): Promise<{ lines: string[]; overlong: number }> {
  const decoder = new TextDecoder();
  const lines: string[] = [];
  let overlong = 0;
  let start = 0;
  const every = opts.yieldEvery ?? 2000;
  // Bounded by the bytes: each pass moves `start` past one newline.
  while (start < bytes.length) {
    let end = bytes.indexOf(0x0a, start);
    if (end < 0) end = bytes.length;
    if (end - start > opts.maxLineBytes) overlong++;
    else {
      const line = decoder.decode(bytes.subarray(start, end));
      if (line.trim()) {
        if (lines.length >= opts.maxLines) throw new AppError(413, "too_many_records", `At most ${opts.maxLines} records a request`, { details: `The limit is ${opts.maxLines} records.` });
        lines.push(line);
        if (lines.length % every === 0) await new Promise((r) => setImmediate(r));
      }
    }
    start = end + 1;
  }
  return { lines, overlong };
}

// Lines of a byte stream with a cap on each: memory stays flat whatever the stream holds, because
// a line past `maxChars` is dropped as it arrives (the rest of it, up to its newline, is skipped)
// and reported as OVERLONG instead of being held whole.

/** What `cappedLines` yields in place of a line longer than its cap. */
export const OVERLONG = Symbol("overlong line");

/** Every line of `stream` (decoded as UTF-8, without its newline), or OVERLONG for a line past `maxChars`. */
export async function* cappedLines(stream: ReadableStream<Uint8Array>, maxChars: number): AsyncGenerator<string | typeof OVERLONG> {
  const decoder = new TextDecoder();
  let rest = "";
  let skipping = false;
  for await (const chunk of stream) {
    const lines = (rest + decoder.decode(chunk, { stream: true })).split("\n");
    rest = lines.pop()!;
    for (const line of lines) {
      if (skipping) skipping = false;
      else yield line.length > maxChars ? OVERLONG : line;
    }
    if (rest.length > maxChars) {
      if (!skipping) yield OVERLONG;
      skipping = true;
      rest = "";
    }
  }
  rest += decoder.decode();
  if (rest && !skipping) yield rest.length > maxChars ? OVERLONG : rest;
}

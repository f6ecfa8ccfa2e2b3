// A line-by-line body (a Logpush push) must arrive whole within its deadline: a client trickling a
// byte now and then would otherwise hold its reader's place as long as it liked.
import { expect, test } from "bun:test";
import { forEachLineCapped } from "../../src/http/body";
import { AppError } from "../../src/http/errors";

const caps = { maxBytes: 1 << 20, maxLines: 100, maxLineBytes: 1024 };

function trickle(lines: string[], everyMs: number) {
  let timer: ReturnType<typeof setInterval>;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      let i = 0;
      timer = setInterval(() => {
        if (i < lines.length) controller.enqueue(new TextEncoder().encode(`${lines[i++]}\n`));
        else (clearInterval(timer), controller.close());
      }, everyMs);
    },
    cancel() {
      clearInterval(timer);
    },
  });
}
const request = (body: ReadableStream<Uint8Array>) => new Request("http://localhost/", { method: "POST", body, duplex: "half" } as RequestInit);

test("a body still arriving at its deadline is refused with 408; what was read is not taken as the whole", async () => {
  const seen: string[] = [];
  const started = performance.now();
  const error = await forEachLineCapped(request(trickle(Array.from({ length: 50 }, (_, i) => `line ${i}`), 20)), { ...caps, deadlineMs: 150 }, (line) => void seen.push(line)).catch((e) => e);
  expect(error).toBeInstanceOf(AppError);
  expect({ status: (error as AppError).status, code: (error as AppError).code }).toEqual({ status: 408, code: "request_timeout" });
  expect(performance.now() - started).toBeLessThan(1_000);
  expect(seen.length).toBeLessThan(50);
});

test("a body that arrives within its deadline is read whole", async () => {
  const seen: string[] = [];
  expect(await forEachLineCapped(request(trickle(["a", "b", "c"], 5)), { ...caps, deadlineMs: 2_000 }, (line) => void seen.push(line))).toEqual({ overlong: 0 });
  expect(seen).toEqual(["a", "b", "c"]);
});

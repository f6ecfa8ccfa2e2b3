import { expect, test } from "bun:test";
import { createSuccessors } from "../../src/queue/successors";

test("a task handed over after another starts when that one's call is over, not before; one without a call in flight starts at once", () => {
  const started: string[] = [];
  const successors = createSuccessors<string>((_id, item) => started.push(item));
  successors.submit(1, "a");
  successors.submit(2, "b", 1);
  expect(started).toEqual(["a"]);
  expect(successors.waiting).toBe(1);
  successors.callOver(1);
  expect(started).toEqual(["a", "b"]);
  successors.callOver(1); // told twice (answered, then ended): nothing more starts
  expect(started).toEqual(["a", "b"]);
  successors.submit(3, "c", 1); // after a call that is over
  successors.submit(4, "d", 99); // after a task this thread never had
  expect(started).toEqual(["a", "b", "c", "d"]);
  expect(successors.waiting).toBe(0);
});

test("a second task behind one call waits behind the first; a dropped one leaves its place to the one behind it", () => {
  const started: number[] = [];
  const successors = createSuccessors<number>((id) => started.push(id));
  successors.submit(1, 1);
  successors.submit(2, 2, 1);
  successors.submit(3, 3, 1); // never two calls on one slot: it goes behind 2
  expect(started).toEqual([1]);
  expect(successors.waiting).toBe(2);
  expect(successors.drop(2)).toBe(true);
  expect(successors.drop(2)).toBe(false);
  successors.callOver(1);
  expect(started).toEqual([1, 3]); // 3 took 2's place behind 1
  expect(successors.drop(3)).toBe(false); // started: not waiting
  expect(successors.waiting).toBe(0);
});

test("what waits behind a call is taken back in order, and none of it starts", () => {
  const started: number[] = [];
  const successors = createSuccessors<number>((id) => started.push(id));
  successors.submit(1, 1);
  successors.submit(2, 2, 1);
  successors.submit(3, 3, 2);
  expect(successors.takeBack(1).map((t) => t.id)).toEqual([2, 3]);
  successors.callOver(1);
  expect(started).toEqual([1]);
  expect(successors.waiting).toBe(0);
  expect(successors.takeBack(1)).toEqual([]);
});

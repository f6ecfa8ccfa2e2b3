// A worker thread's tasks that wait for another task's upstream call to be over before they start:
// a lane's next unit is handed to the thread while the lane's current call is upstream, so the
// next call starts the moment the current one answers, without a round trip through the main
// thread (issue #29: two thread hops a round, ~4–5 ms, more when the main thread is busy).

export interface Successors<T> {
  /** Starts `item` now, or when the call of task `after` is over if that call is still going or waiting. */
  submit(id: number, item: T, after?: number): void;
  /** Task `id`'s call is over (answered, failed or never made): its waiting successor starts. */
  callOver(id: number): void;
  /** Task `id`'s call is over and what waits behind it must not start: returned instead, in order. */
  takeBack(id: number): { id: number; item: T }[];
  /** Removes a task that has not started yet (what waited behind it waits for what it waited for); true when it was waiting. */
  drop(id: number): boolean;
  readonly waiting: number;
}

export function createSuccessors<T>(start: (id: number, item: T) => void): Successors<T> {
  /** Tasks whose call is not over yet. */
  const calling = new Set<number>();
  /** By the task each waits for: one successor per task, as one lane has one call at a time. */
  const parked = new Map<number, { id: number; item: T }>();
  /** The task each waiting task waits for. */
  const waitingOn = new Map<number, number>();

  const begin = (id: number, item: T) => {
    calling.add(id);
    start(id, item);
  };
  const unpark = (after: number) => {
    const next = parked.get(after);
    if (next) {
      parked.delete(after);
      waitingOn.delete(next.id);
    }
    return next;
  };

  return {
    submit(id, item, after) {
      // A second task behind the same call goes behind the first: one slot, one call at a time.
      for (let hops = 0; after !== undefined && parked.has(after) && hops <= parked.size; hops++) after = parked.get(after)!.id;
      if (after !== undefined && (calling.has(after) || waitingOn.has(after)) && !parked.has(after)) {
        parked.set(after, { id, item });
        waitingOn.set(id, after);
      } else begin(id, item);
    },
    callOver(id) {
      if (!calling.delete(id)) return;
      const next = unpark(id);
      if (next) begin(next.id, next.item);
    },
    takeBack(id) {
      calling.delete(id);
      const out: { id: number; item: T }[] = [];
      const most = parked.size;
      for (let next = unpark(id); next && out.length < most; next = unpark(next.id)) out.push(next);
      return out;
    },
    drop(id) {
      const after = waitingOn.get(id);
      if (after === undefined) return false;
      unpark(after);
      const behind = unpark(id);
      if (behind) {
        parked.set(after, behind);
        waitingOn.set(behind.id, after);
      }
      return true;
    },
    get waiting() {
      return parked.size;
    },
  };
}

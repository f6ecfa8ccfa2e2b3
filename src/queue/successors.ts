// A worker thread's tasks that wait for another task's upstream call to be over before they start:
// a lane's next unit is handed to the thread while the lane's current call is upstream, so the
// next call starts the moment the current one answers, without a round trip through the main
// thread (issue #29: two thread hops a round, ~4–5 ms, more when the main thread is busy).

export interface Successors<T> {
  /** Starts `item` now, or when the call of task `after` is over if that call is still going. */
  submit(id: number, item: T, after?: number): void;
  /** Task `id`'s call is over (answered, failed or never made): its waiting successor starts. */
  callOver(id: number): void;
  /** Task `id`'s call is over and its waiting successor must not start: it is returned instead. */
  takeBack(id: number): { id: number; item: T } | undefined;
  /** Removes a task that has not started yet; true when it was waiting. */
  drop(id: number): boolean;
  readonly waiting: number;
}

export function createSuccessors<T>(start: (id: number, item: T) => void): Successors<T> {
  /** Tasks whose call is not over yet. */
  const calling = new Set<number>();
  /** By the task each waits for: one successor per task, as one lane has one call at a time. */
  const parked = new Map<number, { id: number; item: T }>();

  const begin = (id: number, item: T) => {
    calling.add(id);
    start(id, item);
  };

  return {
    submit(id, item, after) {
      if (after !== undefined && calling.has(after) && !parked.has(after)) parked.set(after, { id, item });
      else begin(id, item);
    },
    callOver(id) {
      if (!calling.delete(id)) return;
      const next = parked.get(id);
      if (!next) return;
      parked.delete(id);
      begin(next.id, next.item);
    },
    takeBack(id) {
      calling.delete(id);
      const next = parked.get(id);
      parked.delete(id);
      return next;
    },
    drop(id) {
      for (const [after, next] of parked)
        if (next.id === id) {
          parked.delete(after);
          return true;
        }
      return false;
    },
    get waiting() {
      return parked.size;
    },
  };
}

// A pool of Bun Worker threads. Tasks go to the least busy thread; a thread that dies is
// replaced and its tasks fail as transient (the dispatcher retries them).
import type { UnitTask } from "../tracking/unit";
import type { TaskError, WorkerCommand, WorkerInit, WorkerReply } from "./messages";

interface Slot {
  /** Unset while a replacement thread waits out its back-off. */
  worker?: Worker;
  ready: Promise<void>;
  inFlight: Map<number, { resolve: (v: unknown) => void; reject: (e: TaskError) => void; onAnswered?: () => void }>;
}

export class TaskFailure extends Error {
  constructor(readonly error: TaskError) {
    super(error.message);
  }
}

export interface WorkerPool {
  /**
   * Runs `task` on a thread. With `after` (a task of this pool), it goes to that task's thread and
   * starts there as soon as that task's upstream call is over.
   */
  run(task: UnitTask, onAnswered?: () => void, after?: number): { id: number; task: UnitTask; promise: Promise<unknown> };
  abort(id: number): void;
  /** Starts the threads now (a job was claimed), so their start-up overlaps the job's own. */
  warm(): void;
  size: number;
  stop(): Promise<void>;
}

export function createWorkerPool(options: { size: number; workerUrl: URL | string; init: Omit<WorkerInit, "type"> }): WorkerPool {
  let nextId = 1;
  let stopped = false;
  const slots: Slot[] = [];
  const owner = new Map<number, Slot>();
  /** Tasks handed to their thread, and tasks aborted before they could be. */
  const posted = new Set<number>();
  const aborted = new Set<number>();

  // A thread that dies at once (a bad build, a broken install) would otherwise be respawned in a
  // tight loop: each consecutive death doubles the wait before the next thread, up to 5 s.
  const deaths: number[] = [];

  function spawn(index: number) {
    const inFlight: Slot["inFlight"] = new Map();
    let markReady!: () => void;
    const slot = { inFlight, ready: new Promise<void>((r) => (markReady = r)) } as Slot;
    slots[index] = slot;
    const delayMs = deaths[index] ? Math.min(5000, 100 * 2 ** (deaths[index]! - 1)) : 0;
    const start = () => {
      if (stopped || slots[index] !== slot) return;
      const worker = new Worker(options.workerUrl);
      slot.worker = worker;
      worker.onmessage = (event: MessageEvent<WorkerReply>) => {
        const message = event.data;
        if (message.type === "ready") {
          deaths[index] = 0;
          return markReady();
        }
        const pending = inFlight.get(message.id);
        if (!pending) return;
        if (message.type === "answered") return pending.onAnswered?.();
        inFlight.delete(message.id);
        owner.delete(message.id);
        posted.delete(message.id);
        if (message.ok) pending.resolve(message.value);
        else pending.reject(message.error);
      };
      const onDeath = (reason: string) => {
        if (slots[index] !== slot) return;
        for (const [id, pending] of inFlight) {
          owner.delete(id);
          posted.delete(id);
          aborted.delete(id);
          pending.reject({ message: `worker thread ${reason}`, kind: "internal", permanent: false });
        }
        inFlight.clear();
        deaths[index] = (deaths[index] ?? 0) + 1;
        if (!stopped) spawn(index);
      };
      worker.addEventListener("error", (e) => onDeath(`crashed: ${(e as ErrorEvent).message}`));
      worker.addEventListener("close", () => onDeath("exited"));
      worker.postMessage({ type: "init", ...options.init } satisfies WorkerCommand);
    };
    if (delayMs) setTimeout(start, delayMs);
    else start();
  }

  // Threads start with the first task: an idle server keeps neither their memory nor their start-up cost.
  const ensureStarted = () => {
    if (slots.length === 0) for (let i = 0; i < options.size; i++) spawn(i);
  };

  return {
    size: options.size,
    run(task, onAnswered, after) {
      ensureStarted();
      const id = nextId++;
      // A task `after` that is over (or was never ours) has nothing to wait for.
      const afterSlot = after === undefined ? undefined : owner.get(after);
      const slot = afterSlot ?? slots.reduce((best, s) => (s.inFlight.size < best.inFlight.size ? s : best));
      const promise = new Promise<unknown>((resolve, reject) => {
        slot.inFlight.set(id, { resolve, reject: (e) => reject(new TaskFailure(e)), onAnswered });
      });
      owner.set(id, slot);
      void slot.ready.then(() => {
        // Aborted while its thread was starting: the task is never handed over (an abort posted
        // before the run would reach the thread first and be ignored).
        if (aborted.delete(id)) {
          slot.inFlight.get(id)?.reject({ message: "aborted", kind: "internal", permanent: true });
          slot.inFlight.delete(id);
          owner.delete(id);
          return;
        }
        slot.worker!.postMessage({ type: "run", id, task, after: afterSlot && after } satisfies WorkerCommand);
        posted.add(id);
      });
      return { id, task, promise };
    },
    warm: ensureStarted,
    abort(id) {
      const slot = owner.get(id);
      if (!slot) return;
      if (posted.has(id)) slot.worker?.postMessage({ type: "abort", id } satisfies WorkerCommand);
      else aborted.add(id);
    },
    async stop() {
      stopped = true;
      for (const slot of slots) slot.worker?.terminate();
    },
  };
}

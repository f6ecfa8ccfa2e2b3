// A worker entry that only says it is ready, for the pool's start-up tests.
const thread = globalThis as unknown as Worker;
thread.onmessage = (event: MessageEvent<{ type: string }>) => {
  if (event.data.type === "init") thread.postMessage({ type: "ready" });
};

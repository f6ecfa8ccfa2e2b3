// insert-worker.sqlite.js is imported as text (`with { type: "text" }`): its source, run as a Worker.
declare const source: string;
export default source;

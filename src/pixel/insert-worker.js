// Runs in a Worker thread (started from this text by store.ts, so the compiled binary needs no extra
// entry point): owns one SQLite connection and inserts each batch it is sent in one transaction.
// Commits (and their fsync) happen here, off the thread that answers HTTP.
//
// Messages in:  {type:"open", file, sql, pragmas}  then  {type:"write", id, rows: JSON of [[…params], …]}
//               …  {type:"close"}
// Messages out: {type:"written", id, failed:[[index, message], …]}  and  {type:"closed"}
import { Database } from "bun:sqlite";

let db;
let openError;
let insertAll;
let insertOne;

function open(message) {
  try {
    db = new Database(message.file, { strict: true });
    for (const pragma of message.pragmas) db.run(`PRAGMA ${pragma}`);
    const insert = db.prepare(message.sql);
    insertOne = (row) => insert.run(...row);
    insertAll = db.transaction((batches) => {
      for (const rows of batches) for (const row of rows) insert.run(...row);
    });
  } catch (error) {
    openError = String(error);
  }
}

// Batches that arrived while the previous commit ran are committed together: one transaction (and
// one fsync) for all of them, each batch then answered on its own.
let queued = [];
let draining = false;

function drain() {
  draining = false;
  const messages = queued;
  queued = [];
  if (!messages.length) return;
  const batches = messages.map((message) => JSON.parse(message.rows));
  const failures = batches.map(() => []);
  if (openError) {
    batches.forEach((rows, b) => rows.forEach((_, i) => failures[b].push([i, openError])));
  } else {
    try {
      // IMMEDIATE takes the write lock up front, so a busy database waits (busy_timeout).
      insertAll.immediate(batches);
    } catch {
      // One bad row (e.g. its brand was just deleted) must not fail its neighbours: retry one by one.
      batches.forEach((rows, b) => {
        for (let i = 0; i < rows.length; i++) {
          try {
            insertOne(rows[i]);
          } catch (error) {
            failures[b].push([i, String(error)]);
          }
        }
      });
    }
  }
  messages.forEach((message, b) => postMessage({ type: "written", id: message.id, failed: failures[b] }));
}

function write(message) {
  queued.push(message);
  if (!draining) {
    draining = true;
    setImmediate(drain);
  }
}

self.onmessage = (event) => {
  const message = event.data;
  if (message.type === "open") open(message);
  else if (message.type === "write") write(message);
  else if (message.type === "close") {
    if (queued.length) drain();
    db?.close();
    postMessage({ type: "closed" });
  }
};

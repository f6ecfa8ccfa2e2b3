// Runs in a Worker thread (started from this text by store.sqlite.ts, so the compiled binary needs no extra
// entry point): owns one SQLite connection and inserts each batch it is sent in one transaction.
// Commits (and their fsync) happen here, off the thread that answers HTTP.
//
// Messages in:  {type:"open", file, sql, pragmas, pages}  then  {type:"write", id, sentAt, rows: JSON of [[…params], …]}
//               …  {type:"close"}
// Messages out: {type:"written", id, failed:[[index, message], …]}  and  {type:"closed"}
import { Database } from "bun:sqlite";

// Prefix of a failure that is the database's, not the row's (store.sqlite.ts tells the two apart).
const UNAVAILABLE = "database unavailable";
// When the database last failed a commit (lock wait ran out, disk full…) and why: batches sent
// before that moment waited behind the same failure and fail with it instead of waiting again.
let failedAt = 0;
let lastFailure = "";

let db;
let openError;
let insertAll;
let insertOne;

/**
 * Keeps each brand to `pages.cap` landing pages: in the transaction, before the rows go in, a row
 * whose (platform, path) its brand lacks becomes a new page while there is room (counted once per
 * brand and transaction, up to the cap), else its path becomes `pages.other`.
 */
function pageCapper(pages) {
  const exists = db.prepare(pages.exists);
  const count = db.prepare(pages.count);
  const { brand, platform, path } = pages.at;
  return (batches) => {
    const room = new Map();
    const added = new Set();
    for (const rows of batches)
      for (const row of rows) {
        if (row[platform] === null || row[path] === pages.other) continue;
        const key = `${row[brand]}\u0000${row[platform]}\u0000${row[path]}`;
        if (added.has(key) || exists.get(row[brand], row[platform], row[path])) continue;
        const left = room.get(row[brand]) ?? pages.cap - count.get(row[brand], pages.cap).n;
        if (left <= 0) {
          row[path] = pages.other;
          room.set(row[brand], 0);
        } else {
          room.set(row[brand], left - 1);
          added.add(key);
        }
      }
  };
}

function open(message) {
  try {
    db = new Database(message.file, { strict: true });
    for (const pragma of message.pragmas) db.run(`PRAGMA ${pragma}`);
    const insert = db.prepare(message.sql);
    const capPages = pageCapper(message.pages);
    insertOne = (row) => insert.run(...row);
    insertAll = db.transaction((batches) => {
      capPages(batches);
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
  const stale = messages.filter((message) => message.sentAt < failedAt);
  if (stale.length) {
    for (const message of stale) {
      const rows = JSON.parse(message.rows);
      postMessage({ type: "written", id: message.id, failed: rows.map((_, i) => [i, `${UNAVAILABLE}: ${lastFailure}`]) });
    }
    queued = messages.filter((message) => message.sentAt >= failedAt).concat(queued);
    if (!queued.length) return;
    return drain();
  }
  const batches = messages.map((message) => JSON.parse(message.rows));
  const failures = batches.map(() => []);
  if (openError) {
    batches.forEach((rows, b) => rows.forEach((_, i) => failures[b].push([i, openError])));
  } else {
    try {
      // IMMEDIATE takes the write lock up front, so a busy database waits (busy_timeout).
      insertAll.immediate(batches);
    } catch (error) {
      // A locked, full or failing database fails every row alike: retrying row by row would
      // wait out the lock once per row.
      if (!String(error?.code ?? "").startsWith("SQLITE_CONSTRAINT")) {
        lastFailure = String(error);
        failedAt = Date.now();
        batches.forEach((rows, b) => rows.forEach((_, i) => failures[b].push([i, `${UNAVAILABLE}: ${error}`])));
        messages.forEach((message, b) => postMessage({ type: "written", id: message.id, failed: failures[b] }));
        return;
      }
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

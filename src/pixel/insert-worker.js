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
    insertAll = db.transaction((rows) => {
      for (const row of rows) insert.run(...row);
    });
  } catch (error) {
    openError = String(error);
  }
}

function write(message) {
  const rows = JSON.parse(message.rows);
  const failed = [];
  if (openError) {
    for (let i = 0; i < rows.length; i++) failed.push([i, openError]);
  } else {
    try {
      // IMMEDIATE takes the write lock up front, so a busy database waits (busy_timeout).
      insertAll.immediate(rows);
    } catch {
      // One bad row (e.g. its brand was just deleted) must not fail its neighbours: retry one by one.
      for (let i = 0; i < rows.length; i++) {
        try {
          insertOne(rows[i]);
        } catch (error) {
          failed.push([i, String(error)]);
        }
      }
    }
  }
  postMessage({ type: "written", id: message.id, failed });
}

self.onmessage = (event) => {
  const message = event.data;
  if (message.type === "open") open(message);
  else if (message.type === "write") write(message);
  else if (message.type === "close") {
    db?.close();
    postMessage({ type: "closed" });
  }
};

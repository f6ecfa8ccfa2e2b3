// t.js is imported as text (`with { type: "text" }`): its source, served at /t.js.
declare const source: string;
export default source;

// GET /docs: a reference page for /openapi.json, self-contained (no CDN: it works offline), listing
// each operation by tag with its parameters and request body. Its script and styles are files of
// their own (/docs.js, /docs.css) so the page runs under the Content-Security-Policy without any
// inline code.
export const DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>answerwatch API</title>
<link rel="stylesheet" href="/docs.css"></head><body><p><a href="/">← answerwatch</a></p><h1>answerwatch API</h1><p>Generated from the server's routes and schema: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</p><div id="ops">Loading…</div>
<script src="/docs.js"></script></body></html>`;

export const DOCS_CSS = `:root{color-scheme:light dark;font:15px/1.5 system-ui,sans-serif}body{max-width:1000px;margin:0 auto;padding:1rem;overflow-wrap:anywhere}
h2{margin-top:2rem;border-bottom:1px solid #8884}details{margin:.3rem 0;border:1px solid #8884;border-radius:6px;padding:.3rem .6rem}
summary{cursor:pointer}code{font-family:ui-monospace,monospace}.m{display:inline-block;min-width:4.5rem;font-weight:700;text-transform:uppercase}
pre{white-space:pre-wrap;background:#8881;padding:.5rem;border-radius:6px;font-size:.85rem}
a{color:#0a58ca}@media (prefers-color-scheme:dark){body{background:#0d1117;color:#e6edf3}a{color:#4493f8}}
`;

export const DOCS_SCRIPT = `fetch("/openapi.json").then(r=>r.json()).then(doc=>{
  const byTag={};
  for(const [path,ops] of Object.entries(doc.paths))for(const [m,op] of Object.entries(ops))(byTag[(op.tags||["other"])[0]]??=[]).push([m,path,op]);
  const esc=s=>String(s).replace(/[&<>]/g,c=>({"&":"&amp;","<":"&lt;",">":"&gt;"}[c]));
  document.getElementById("ops").innerHTML=Object.keys(byTag).sort().map(tag=>"<h2>"+esc(tag)+"</h2>"+byTag[tag].map(([m,p,op])=>
    "<details><summary><span class=m>"+esc(m)+"</span> <code>"+esc(p)+"</code>"+(op.description?" — "+esc(op.description):"")+"</summary>"+
    (op.parameters?"<p>Parameters: "+op.parameters.map(x=>"<code>"+esc(x.name)+"</code> ("+esc(x.in)+")").join(", ")+"</p>":"")+
    (op.requestBody?"<pre>"+esc(JSON.stringify(op.requestBody.content["application/json"].schema,null,2))+"</pre>":"")+"</details>").join("")).join("");
});
`;

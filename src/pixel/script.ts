// GET /t.js: the pixel script, whitespace-minified once at start-up, with a content ETag so caches
// revalidate cheaply after an upgrade (the URL carries no version).
import source from "./t.js" with { type: "text" };

export const SCRIPT_CACHE_CONTROL = "public, max-age=86400, stale-while-revalidate=604800";

export function createScriptAsset() {
  const body = new Bun.Transpiler({ loader: "js", minifyWhitespace: true }).transformSync(source);
  const etag = `"${Bun.hash(body).toString(36)}"`;
  const headers = {
    "content-type": "application/javascript; charset=utf-8",
    "cache-control": SCRIPT_CACHE_CONTROL,
    etag,
    "x-content-type-options": "nosniff",
    // Sites that isolate themselves (COEP require-corp) may still load it.
    "cross-origin-resource-policy": "cross-origin",
  };

  function notModified(ifNoneMatch: string | null): boolean {
    if (!ifNoneMatch) return false;
    return ifNoneMatch.split(",").some((tag) => {
      const t = tag.trim();
      return t === "*" || t === etag || t === `W/${etag}`;
    });
  }

  return {
    body,
    etag,
    respond(request: Request): Response {
      if (notModified(request.headers.get("if-none-match"))) return new Response(null, { status: 304, headers });
      return new Response(request.method === "HEAD" ? null : body, { headers });
    },
  };
}

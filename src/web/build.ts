// Builds the web app (index.html, its scripts and styles) with Bun's bundler, minified, for the
// browser: the files the server answers, by path. scripts/build-web.ts writes them into
// assets.generated.ts, which the compiled binary embeds; run from source without it, the server
// builds them in memory at start.
export interface WebAsset {
  type: string;
  body: string;
}

export type WebAssets = Record<string, WebAsset>;

const TYPES: Record<string, string> = { ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".html": "text/html; charset=utf-8", ".map": "application/json" };

export async function buildWebAssets(): Promise<WebAssets> {
  const result = await Bun.build({
    entrypoints: [new URL("./index.html", import.meta.url).pathname],
    target: "browser",
    minify: true,
    // Absolute: the page is answered at nested paths (/b/<brand>/prompts).
    publicPath: "/",
    naming: { chunk: "[name]-[hash].[ext]", asset: "[name]-[hash].[ext]", entry: "[name].[ext]" },
  });
  if (!result.success) throw new AggregateError(result.logs, "the web app did not build");
  const assets: WebAssets = {};
  for (const out of result.outputs) {
    const path = `/${out.path.replace(/^\.\//, "")}`;
    const ext = path.slice(path.lastIndexOf("."));
    assets[path] = { type: TYPES[ext] ?? "application/octet-stream", body: await out.text() };
  }
  return assets;
}

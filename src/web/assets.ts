// The web app's files, answered by the server as native routes: the page at every app path, its
// hashed scripts and styles cached for good.
import { pageSecurityHeaders } from "../http/security-headers";
import type { WebAssets } from "./build";

export const WEB_PATHS = ["/", "/login", "/signup", "/forgot", "/onboarding", "/account", "/b/*"];

/** The generated files (scripts/build-web.ts), else — run from source — a build made now. */
export async function loadWebAssets(): Promise<WebAssets> {
  try {
    return (await import("./assets.generated")).WEB_ASSETS as WebAssets;
  } catch {
    return (await import("./build")).buildWebAssets();
  }
}

/** Bun.serve routes for the assets: the page at the app's paths, every other file at its own. */
export function webRoutes(assets: WebAssets): Record<string, Response> {
  const routes: Record<string, Response> = {};
  const page = assets["/index.html"];
  for (const [path, asset] of Object.entries(assets)) {
    if (path === "/index.html") continue;
    routes[path] = new Response(asset.body, { headers: { "content-type": asset.type, "cache-control": "public, max-age=31536000, immutable", "x-content-type-options": "nosniff" } });
  }
  if (page) for (const path of WEB_PATHS) routes[path] = new Response(page.body, { headers: { "content-type": page.type, "cache-control": "no-cache", ...pageSecurityHeaders() } });
  return routes;
}

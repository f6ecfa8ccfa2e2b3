// /t.js, /t/collect and GET /api/brands/:brandId/traffic (DESIGN §10). Thin: read the request,
// call the service, shape the response. The beacon and the script are plain Request → Response
// handlers: the server mounts them as native Bun.serve routes (no Elysia, no URL parsing on the
// hottest path), and app.handle calls the same functions for in-process requests.
import { Elysia } from "elysia";
import type { DirectRoutes, RequestMeta } from "../http/request";
import { AppError } from "../http/errors";
import { textUpTo } from "../http/body";
import type { CallerResolver } from "../platform/auth/caller";
import { MAX_BEACON_BYTES } from "./beacon";
import { originHost } from "./origin";
import { createScriptAsset } from "./script";
import type { ReportRunner } from "../reports/registry";
import { createPixelService, type PixelOptions } from "./service";
import type { PixelStore } from "./store";

export interface PixelRoutesDeps {
  store: PixelStore;
  callers: CallerResolver;
  meta: (request: Request) => RequestMeta;
  now?: () => Date;
  options?: Partial<PixelOptions>;
  reports: ReportRunner;
  clientAddress?: (peer: string, forwardedFor: string | null) => string;
  /** Registers work for shutdown: the batch writer flushes there. */
  onClose: (close: () => Promise<void>) => void;
}

const TOO_LARGE = new AppError(413, "payload_too_large", `A beacon is at most ${MAX_BEACON_BYTES} bytes`);

/** The body as text, refusing more than `max` bytes (a chunked body has no length to check first). */
async function readBeaconBody(request: Request, max: number): Promise<string> {
  const declared = request.headers.get("content-length");
  if (declared !== null) {
    if (!(Number(declared) <= max)) throw TOO_LARGE;
    return request.text();
  }
  // Read as it comes and refused once past `max`: arrayBuffer() took up to the app's 1 MiB first.
  const text = await textUpTo(request.body, max);
  if (text === null) throw TOO_LARGE;
  return text;
}

export function pixelRoutes(deps: PixelRoutesDeps): { direct: DirectRoutes; elysia: Elysia<any, any, any, any, any, any, any> } {
  const service = createPixelService({ store: deps.store, now: deps.now, options: deps.options, reports: deps.reports, clientAddress: deps.clientAddress });
  deps.onClose(() => service.close());
  const script = createScriptAsset();
  const serveScript = (request: Request) => script.respond(request);

  const direct: DirectRoutes = {
    "/t.js": { GET: serveScript, HEAD: serveScript },
    "/t/collect": {
      OPTIONS(request) {
        // Any web origin may ask; the beacon itself is checked against the brand's domains.
        const origin = request.headers.get("origin");
        const headers: Record<string, string> = {
          "access-control-allow-methods": "POST, OPTIONS",
          "access-control-allow-headers": "content-type",
          "access-control-max-age": "86400",
          vary: "Origin",
        };
        if (originHost(origin)) headers["access-control-allow-origin"] = origin!;
        return new Response(null, { status: 204, headers });
      },
      async POST(request) {
        const headers = request.headers;
        const origin = headers.get("origin");
        await service.collect({
          body: await readBeaconBody(request, MAX_BEACON_BYTES),
          origin,
          userAgent: headers.get("user-agent"),
          peer: deps.meta(request).ip,
          forwardedFor: headers.get("x-forwarded-for"),
          optOutHeader: headers.get("dnt") === "1" || headers.get("sec-gpc") === "1",
        });
        // Reached only for an accepted origin, which is then safe to echo.
        return new Response(null, { status: 204, headers: { "access-control-allow-origin": origin!, vary: "Origin" } });
      },
    },
  };

  const elysia = new Elysia().get("/api/brands/:brandId/traffic", async ({ request, params }) => {
    const caller = await deps.callers.apiUser(request);
    const query = Object.fromEntries(new URL(request.url).searchParams);
    return { success: true, ...(await service.traffic(caller, params.brandId, query)) };
  });
  return { direct, elysia };
}

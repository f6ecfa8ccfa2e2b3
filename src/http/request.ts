// What the app knows of a request beyond the Request itself, and the routes served without Elysia:
// types shared by app.ts and the features' routes, kept below both so neither imports the other.

export interface RequestMeta {
  requestId: string;
  ip: string;
}

/** Routes served without Elysia: exact path → method → handler (the pixel's hot paths). */
export type DirectRoutes = Record<string, Record<string, (request: Request) => Response | Promise<Response>>>;

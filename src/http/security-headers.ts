// Browser hardening for everything the server sends (README: Security). Pages run under a
// Content-Security-Policy with no inline script or style: the web app and /docs load their code
// and styles from this origin only. Share links (/share/*) may be framed — embedding a client's
// read-only view in a portal is what they are for; nothing else may be.

const POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  // The favicon is a data: URL; charts draw on canvas.
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
];

export type PageFraming = "deny" | "embeddable";

const frameAncestors = (framing: PageFraming) => `frame-ancestors ${framing === "deny" ? "'none'" : "*"}`;

/**
 * The policy of a document the server writes itself (no script, its styles inline — a small page, a
 * client report): nothing loads but data: images where it has some, nothing runs; a form posts back
 * here only when it has one.
 */
export function inlinePagePolicy(framing: PageFraming, has: { form?: boolean; images?: boolean } = {}): string {
  return `default-src 'none'; style-src 'unsafe-inline';${has.images ? " img-src data:;" : ""} base-uri 'none'; form-action ${has.form ? "'self'" : "'none'"}; ${frameAncestors(framing)}`;
}

/** The headers of an HTML page. */
export function pageSecurityHeaders(framing: PageFraming = "deny"): Record<string, string> {
  const headers: Record<string, string> = {
    "content-security-policy": [...POLICY, frameAncestors(framing)].join("; "),
    "x-content-type-options": "nosniff",
    // No page's URL leaves the site: a share link's token is in its path.
    "referrer-policy": "no-referrer",
  };
  if (framing === "deny") headers["x-frame-options"] = "DENY";
  return headers;
}

/**
 * Adds the browser headers to a response: every response is nosniff; an HTML page gets the policy,
 * unless its route set one of its own (a client report's allows less than any page's).
 */
export function applySecurityHeaders(pathname: string, headers: Headers): void {
  headers.set("x-content-type-options", "nosniff");
  if (!headers.get("content-type")?.startsWith("text/html")) return;
  const ownPolicy = headers.has("content-security-policy");
  for (const [name, value] of Object.entries(pageSecurityHeaders(pathname.startsWith("/share/") ? "embeddable" : "deny"))) if (!(ownPolicy && name === "content-security-policy")) headers.set(name, value);
}

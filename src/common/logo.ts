// Pure code shared by the server and the web app (no I/O, no imports).
//
// An organization's logo (organizations.logo) is a data: URL, never a link: client reports are
// white-label and make no request (src/client-report), so the image travels inside the row.
// The REST write path refuses anything else (src/platform/rest/constraints.ts); the Settings page
// checks the same before it sends.

/** Longest logo accepted, in characters of its data: URL (256 KB). */
export const LOGO_MAX_CHARS = 256 * 1024;

/** The image types a logo may be. */
export const LOGO_TYPES = ["image/png", "image/jpeg", "image/webp", "image/svg+xml"] as const;

const LOGO_DATA_URL = /^data:image\/(?:png|jpeg|webp|svg\+xml);base64,(?=[A-Za-z0-9+/])(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Whether `value` is a logo as stored: a base64 data: URL of one of LOGO_TYPES, at most LOGO_MAX_CHARS long. */
export const isLogoDataUrl = (value: unknown): boolean => typeof value === "string" && value.length <= LOGO_MAX_CHARS && LOGO_DATA_URL.test(value);

// x-request-id: reuse the caller's when it is a sane token (so traces join up), otherwise make one.
const SANE = /^[A-Za-z0-9._:\-]{1,128}$/;

export function requestIdFor(request: Request): string {
  const given = request.headers.get("x-request-id");
  return given && SANE.test(given) ? given : crypto.randomUUID();
}

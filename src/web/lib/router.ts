// Client-side routes with the History API: the server answers every app path with the same page,
// so a deep link reloads where it was. Filters live in the query string, so a view can be shared.
import { useEffect, useState } from "preact/hooks";

export interface Location {
  path: string;
  query: URLSearchParams;
}

const current = (): Location => ({ path: location.pathname, query: new URLSearchParams(location.search) });
const listeners = new Set<() => void>();

/** A path of this app, or "/": a ?next= from a link may name another origin, which history refuses (a blank page). */
export function appPath(to: string): string {
  return to.startsWith("/") && !to.startsWith("//") && !to.startsWith("/\\") ? to : "/";
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  to = appPath(to);
  if (to === location.pathname + location.search) return;
  history[options.replace ? "replaceState" : "pushState"](null, "", to);
  for (const l of listeners) l();
  window.scrollTo(0, 0);
}

/** Changes some query parameters of the current path (null removes one). */
export function setQuery(changes: Record<string, string | null>): void {
  const q = new URLSearchParams(location.search);
  for (const [k, v] of Object.entries(changes)) v === null || v === "" ? q.delete(k) : q.set(k, v);
  const search = q.toString();
  navigate(`${location.pathname}${search ? `?${search}` : ""}`, { replace: true });
}

export function useLocation(): Location {
  const [loc, setLoc] = useState(current);
  useEffect(() => {
    const update = () => setLoc(current());
    listeners.add(update);
    addEventListener("popstate", update);
    return () => {
      listeners.delete(update);
      removeEventListener("popstate", update);
    };
  }, []);
  return loc;
}

/** `pattern` like /b/:brandId/prompts/:promptId → the named parts, or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split("/").filter(Boolean);
  const s = path.split("/").filter(Boolean);
  if (p.length !== s.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    if (p[i]!.startsWith(":")) params[p[i]!.slice(1)] = decodeURIComponent(s[i]!);
    else if (p[i] !== s[i]) return null;
  }
  return params;
}

/** Clicks on app links navigate without a reload (ctrl/cmd-click still opens a tab). */
export function onLinkClick(event: MouseEvent): void {
  const a = (event.target as Element).closest?.("a");
  if (!a || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || a.target || a.hasAttribute("download")) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin) return;
  event.preventDefault();
  navigate(url.pathname + url.search);
}

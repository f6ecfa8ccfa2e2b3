// The frame of every signed-in page: the product name, the brand's pages, the account menu.
import type { ComponentChildren } from "preact";
import type { Connection, Session } from "../lib/session";
import { useLocation } from "../lib/router";
import { useEffect, useRef } from "preact/hooks";

export const BRAND_PAGES: [string, string][] = [
  ["overview", "Overview"],
  ["prompts", "Prompts"],
  ["competitors", "Competitors"],
  ["sources", "Sources"],
  ["suggestions", "Suggestions"],
  ["traffic", "AI traffic"],
  ["crawlers", "AI crawlers"],
  ["runs", "Runs"],
  ["settings", "Settings"],
];

export function Shell({ conn, session, brandId, children }: { conn: Connection; session: Session; brandId: string | null; children: ComponentChildren }) {
  const loc = useLocation();
  const page = loc.path.split("/")[3] ?? "overview";
  // Filters travel with the pages that share them.
  const search = new URLSearchParams(loc.query);
  // On a phone the tab bar scrolls: bring the current tab into view rather than leave it under the fade.
  const tabs = useRef<HTMLElement>(null);
  useEffect(() => {
    const current = tabs.current?.querySelector<HTMLElement>('[aria-current="page"]');
    if (current && tabs.current) tabs.current.scrollLeft = Math.max(0, current.offsetLeft - tabs.current.offsetLeft - 16);
  }, [page, brandId]);
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="logo" href="/">
          answerwatch
        </a>
        {brandId && (
          <nav aria-label="Brand pages" class="tabs" ref={tabs}>
            {BRAND_PAGES.map(([id, label]) => (
              <a key={id} href={`/b/${brandId}/${id}${search.toString() ? `?${search}` : ""}`} aria-current={page === id ? "page" : undefined}>
                {label}
              </a>
            ))}
          </nav>
        )}
        <div class="account">
          {/* target: a page the server renders, not one of the app's routes. */}
          <a href="/docs" target="_self">
            API docs
          </a>
          <a href="/account" title={session.user.email}>
            Account
          </a>
          <button type="button" class="link" onClick={() => conn.sb.auth.signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}

/**
 * The brand's client report for the window on screen, in a new tab. A form rather than a link: the
 * report needs the session's token, which a link cannot send as a header and which, in a URL, would
 * stay in the browser's history; the server takes it from the form (src/client-report/routes.ts).
 */
export function ClientReportLink({ brandId, session, from, to }: { brandId: string; session: Session; from: string; to: string }) {
  return (
    <form class="report-link" method="post" action={`/api/brands/${brandId}/report`} target="_blank">
      <input type="hidden" name="access_token" value={session.access_token} />
      <input type="hidden" name="from" value={from} />
      <input type="hidden" name="to" value={to} />
      <button type="submit" class="link" title={`The brand's report for ${from} – ${to}, to print or save as PDF`}>
        Client report
      </button>
    </form>
  );
}

// The brands the user's organizations track, as the portfolio (portfolio.tsx), or the first step
// when there are none; above them, the invitations waiting for the user's answer (nobody joins an
// organization without accepting).
import { useState } from "preact/hooks";
import { Empty, useAsync } from "../components/ui";
import { dateTime } from "../lib/format";
import { setQuery, useLocation } from "../lib/router";
import { errorMessage, type Connection } from "../lib/session";
import { Portfolio, portfolioQuery, type PortfolioAnswer } from "./portfolio";

interface Invitation {
  id: string;
  role: string;
  expires_at: string;
}

interface OpenedInvitation extends Invitation {
  organization_name: string;
  invited_by_email: string | null;
}

/**
 * The invitations waiting for the user. Each is opened and answered with the key of its link
 * (`?invitation=…&key=…`): the list alone says only the role and until when, since whoever claimed
 * an invited address must learn neither who invites nor where.
 */
function Invitations({ conn, answered }: { conn: Connection; answered(): void }) {
  const loc = useLocation();
  const linked = { id: loc.query.get("invitation"), key: loc.query.get("key") };
  const invitations = useAsync(() => conn.api<{ invitations: Invitation[] }>("GET", "/api/invitations"), []);
  const opened = useAsync(
    async () => (linked.id && linked.key ? (await conn.api<{ invitation: OpenedInvitation }>("POST", `/api/invitations/${linked.id}/open`, { key: linked.key })).invitation : null),
    [linked.id, linked.key],
  );
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const note = message && (
    <p class={message.ok ? "ok" : "error"} role={message.ok ? "status" : "alert"}>
      {message.text}
    </p>
  );
  const answer = async (inv: OpenedInvitation, verb: "accept" | "decline") => {
    try {
      await conn.api("POST", `/api/invitations/${inv.id}/${verb}`, { key: linked.key });
      // The key has done its work: it leaves the address bar (and the history entry).
      setQuery({ invitation: null, key: null });
      setMessage({ ok: true, text: verb === "accept" ? `You joined ${inv.organization_name}.` : `Invitation to ${inv.organization_name} declined.` });
      invitations.reload();
      answered();
    } catch (e) {
      setMessage({ ok: false, text: errorMessage(e) });
    }
  };
  const open = opened.data;
  const others = (invitations.data?.invitations ?? []).filter((inv) => inv.id !== open?.id);
  if (!open && !others.length && !opened.error) return note;
  return (
    <section class="card" aria-label="Invitations">
      <h2>Invitations</h2>
      {note}
      {opened.error && (
        <p class="error" role="alert">
          {(opened.error as { status?: number }).status === 404
            ? "This invitation's link does not open an invitation of yours: it may have expired, been withdrawn or sent again (a newer link replaces it), or be meant for another address."
            : errorMessage(opened.error)}
        </p>
      )}
      <ul class="plain">
        {open && (
          <li key={open.id}>
            <strong>{open.organization_name}</strong> invites you as <strong>{open.role}</strong>
            {open.invited_by_email ? ` (from ${open.invited_by_email})` : ""}, until {dateTime(open.expires_at)}.{" "}
            <button type="button" class="primary" onClick={() => answer(open, "accept")}>
              Accept
            </button>{" "}
            <button type="button" onClick={() => answer(open, "decline")}>
              Decline
            </button>
          </li>
        )}
        {others.map((inv) => (
          <li key={inv.id}>
            An invitation as <strong>{inv.role}</strong>, until {dateTime(inv.expires_at)}.{" "}
            <span class="muted">Open its link (mailed to you, or sent by whoever invited you) to see who invites you and to answer.</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

export function Home({ conn }: { conn: Connection }) {
  const loc = useLocation();
  const search = portfolioQuery(loc.query);
  const portfolio = useAsync(() => conn.api<PortfolioAnswer>("GET", `/api/portfolio?${search}`), [search]);
  // No brand in any organization: the first step, whatever the switcher says.
  const none = portfolio.data && !portfolio.data.brands.length && !loc.query.get("org");
  // The invitations stay at one place in the tree, so accepting one (which adds brands) keeps its message.
  return (
    <>
      <Invitations conn={conn} answered={portfolio.reload} />
      {none ? (
        <Empty title="No brand yet">
          <p>Add your brand, its competitors and the questions your customers ask AI assistants; answerwatch asks the engines and shows how often you come up.</p>
          <a class="button primary" href="/onboarding">
            Add a brand
          </a>
        </Empty>
      ) : (
        <section>
          <div class="heading">
            <h1>Brands</h1>
            <a class="button" href="/onboarding">
              Add a brand
            </a>
          </div>
          <Portfolio data={portfolio} query={loc.query} />
        </section>
      )}
    </>
  );
}

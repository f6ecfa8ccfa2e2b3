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
  organization_name: string;
  role: string;
  invited_by_email: string | null;
  expires_at: string;
}

/**
 * The invitations waiting for the user. Answering one needs the key of its link (`?invitation=…&key=…`)
 * where the server proves no address (`key_required`): the others wait for their own link.
 */
function Invitations({ conn, answered }: { conn: Connection; answered(): void }) {
  const loc = useLocation();
  const linked = { id: loc.query.get("invitation"), key: loc.query.get("key") };
  const invitations = useAsync(() => conn.api<{ invitations: Invitation[]; key_required?: boolean }>("GET", "/api/invitations"), []);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const note = message && (
    <p class={message.ok ? "ok" : "error"} role={message.ok ? "status" : "alert"}>
      {message.text}
    </p>
  );
  if (invitations.loading || invitations.error || !invitations.data?.invitations.length) return note;
  const keyFor = (inv: Invitation) => (linked.id === inv.id && linked.key ? linked.key : undefined);
  const answer = async (inv: Invitation, verb: "accept" | "decline") => {
    try {
      const key = keyFor(inv);
      await conn.api("POST", `/api/invitations/${inv.id}/${verb}`, key ? { key } : undefined);
      // The key has done its work: it leaves the address bar (and the history entry).
      if (key) setQuery({ invitation: null, key: null });
      setMessage({ ok: true, text: verb === "accept" ? `You joined ${inv.organization_name}.` : `Invitation to ${inv.organization_name} declined.` });
      invitations.reload();
      answered();
    } catch (e) {
      setMessage({ ok: false, text: errorMessage(e) });
    }
  };
  return (
    <section class="card" aria-label="Invitations">
      <h2>Invitations</h2>
      {note}
      <ul class="plain">
        {invitations.data.invitations.map((inv) => (
          <li key={inv.id}>
            <strong>{inv.organization_name}</strong> invites you as <strong>{inv.role}</strong>
            {inv.invited_by_email ? ` (from ${inv.invited_by_email})` : ""}, until {dateTime(inv.expires_at)}.{" "}
            {invitations.data!.key_required && !keyFor(inv) ? (
              <span class="muted">To answer, open the invitation's link (mailed to you, or sent by whoever invited you).</span>
            ) : (
              <>
                <button type="button" class="primary" onClick={() => answer(inv, "accept")}>
                  Accept
                </button>{" "}
                <button type="button" onClick={() => answer(inv, "decline")}>
                  Decline
                </button>
              </>
            )}
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

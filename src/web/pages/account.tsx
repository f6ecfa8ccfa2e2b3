// The signed-in user: e-mail, password change (supabase-js updateUser), digests and alerts per
// brand (/api/digests: each member's own choice), sign out.
import { useState } from "preact/hooks";
import { ErrorBox, Field, Loading, useAsync } from "../components/ui";
import { errorMessage, type Connection, type Session } from "../lib/session";

export function Account({ conn, session, recovered = false }: { conn: Connection; session: Session; recovered?: boolean }) {
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  async function change(event: Event) {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const password = String(new FormData(form).get("password"));
    const { error } = await conn.sb.auth.updateUser({ password });
    setMessage(error ? { ok: false, text: errorMessage(error) } : { ok: true, text: "Password changed." });
    if (!error) form.reset();
  }
  return (
    <section>
      <h1>Account</h1>
      <p>
        Signed in as <strong>{session.user.email}</strong>
      </p>
      {recovered && (
        <p class="card narrow" role="status">
          <strong>You are signed in by your recovery link.</strong> Choose a new password now.
        </p>
      )}
      <form onSubmit={change} class="card narrow">
        <h2>Change password</h2>
        <Field label="New password">
          <input name="password" type="password" autoComplete="new-password" required minLength={6} />
        </Field>
        {message && (
          <p class={message.ok ? "ok" : "error"} role="status">
            {message.text}
          </p>
        )}
        <button type="submit" class="primary">
          Change password
        </button>
      </form>
      <Digests conn={conn} />
      <p>
        <button type="button" onClick={() => conn.sb.auth.signOut()}>
          Sign out
        </button>
      </p>
    </section>
  );
}

interface Subscription {
  brand_id: string;
  brand_name: string;
  organization_name: string;
  frequency: "none" | "weekly" | "monthly";
  alerts: boolean;
}

/** Per brand: a weekly or monthly digest (or none) and alerts, saved as soon as they change. */
function Digests({ conn }: { conn: Connection }) {
  const list = useAsync(() => conn.api<{ mail_enabled: boolean; address: { email: string; confirmed: boolean; confirmation_sent_at: string | null } | null; subscriptions: Subscription[] }>("GET", "/api/digests"), []);
  const [saved, setSaved] = useState<{ ok: boolean; text: string } | null>(null);
  async function save(row: Subscription, change: Partial<Subscription>) {
    const next = { ...row, ...change };
    try {
      const answer = await conn.api<{ confirmation_sent: boolean }>("PUT", `/api/brands/${row.brand_id}/digest`, { frequency: next.frequency, alerts: next.alerts });
      Object.assign(row, change);
      setSaved({ ok: true, text: answer.confirmation_sent ? `Saved for ${row.brand_name}. We mailed you a link to confirm your address: mail starts once you follow it.` : `Saved for ${row.brand_name}.` });
      if (answer.confirmation_sent) list.reload();
    } catch (error) {
      setSaved({ ok: false, text: (error as Error).message });
    }
  }
  async function resend() {
    try {
      await conn.api("POST", "/api/digests/confirmation");
      setSaved({ ok: true, text: "We mailed you the link again." });
      list.reload();
    } catch (error) {
      setSaved({ ok: false, text: (error as Error).message });
    }
  }
  if (list.loading && !list.data) return <Loading what="Loading your digests" />;
  if (list.error) return <ErrorBox error={list.error} />;
  const { mail_enabled, address, subscriptions } = list.data!;
  const wantsMail = subscriptions.some((s) => s.frequency !== "none" || s.alerts);
  return (
    <section class="card" aria-label="Digests and alerts">
      <h2>Digests and alerts</h2>
      <p class="muted">
        A digest is the overview's “what changed” for the last complete week (sent on Mondays) or month, with the client report attached. Alerts come when an engine's visibility moves beyond noise. Only you choose what you receive; every mail has a one-click unsubscribe.
      </p>
      {!mail_enabled && (
        <p class="warning" role="note">
          This server sends no mail (SMTP_URL is not set): your choices are kept, and mail starts once an operator sets it up. A webhook endpoint can receive digests meanwhile (events digest.weekly, digest.monthly).
        </p>
      )}
      {mail_enabled && address && !address.confirmed && wantsMail && (
        <p class="warning" role="note">
          Nothing is mailed to {address.email} until you confirm it{address.confirmation_sent_at ? ": follow the link we mailed you" : ""}.{" "}
          <button type="button" class="link" onClick={resend}>
            {address.confirmation_sent_at ? "Send the link again" : "Send the link"}
          </button>
        </p>
      )}
      {!subscriptions.length ? (
        <p class="muted">No brand yet.</p>
      ) : (
        <table class="digest-table">
          <thead>
            <tr>
              <th scope="col">Brand</th>
              <th scope="col">Digest</th>
              <th scope="col">Alerts</th>
            </tr>
          </thead>
          <tbody>
            {subscriptions.map((row) => (
              <tr key={row.brand_id} data-digest-brand={row.brand_name}>
                <td>
                  {row.brand_name} <span class="muted">{row.organization_name}</span>
                </td>
                <td>
                  <select aria-label={`Digest of ${row.brand_name}`} value={row.frequency} onChange={(e) => save(row, { frequency: (e.target as HTMLSelectElement).value as Subscription["frequency"] })}>
                    <option value="none">None</option>
                    <option value="weekly">Weekly</option>
                    <option value="monthly">Monthly</option>
                  </select>
                </td>
                <td>
                  <input type="checkbox" aria-label={`Alerts about ${row.brand_name}`} checked={row.alerts} onChange={(e) => save(row, { alerts: (e.target as HTMLInputElement).checked })} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {saved && (
        <p class={saved.ok ? "ok" : "error"} role="status">
          {saved.text}
        </p>
      )}
    </section>
  );
}

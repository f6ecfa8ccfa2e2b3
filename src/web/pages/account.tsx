// The signed-in user: e-mail, password change (supabase-js updateUser), sign out.
import { useState } from "preact/hooks";
import { Field } from "../components/ui";
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
      <p>
        <button type="button" onClick={() => conn.sb.auth.signOut()}>
          Sign out
        </button>
      </p>
    </section>
  );
}

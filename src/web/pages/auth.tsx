// Sign in and sign up through supabase-js (GoTrue wire format); the server's message on refusal.
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { Field } from "../components/ui";
import { navigate } from "../lib/router";
import { errorMessage, type Connection } from "../lib/session";

/** The server's refusal under a form, announced to screen readers. */
const FormError = ({ error }: { error: string | null }) =>
  error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : null;

/** The six-digit code of a mailed link, typed instead of opening the link (recovery, sign-up confirmation). */
function CodeForm({ onSubmit, title, button, error, busy, children }: { onSubmit: (event: Event) => void; title: string; button: string; error: string | null; busy: boolean; children: ComponentChildren }) {
  return (
    <form onSubmit={onSubmit} class="card">
      <h2>{title}</h2>
      <p role="status">{children}</p>
      <Field label="Code">
        <input name="code" inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]{6}" required />
      </Field>
      <FormError error={error} />
      <button type="submit" class="primary" disabled={busy}>
        {button}
      </button>
    </form>
  );
}

/** A link between sign-in and sign-up that keeps where the user was going (an invitation's home page, say). */
const withNext = (path: string, next: string | null) => (next ? `${path}?next=${encodeURIComponent(next)}` : path);

export function AuthPage({ conn, mode, next }: { conn: Connection; mode: "login" | "signup"; next: string | null }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // Set when the server asks new accounts to confirm their address (AUTH_CONFIRM_EMAIL).
  const [confirming, setConfirming] = useState<string | null>(null);
  const landing = next && next !== "/" ? next : "/onboarding";
  async function submit(event: Event) {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    const email = String(form.get("email"));
    const password = String(form.get("password"));
    setBusy(true);
    setError(null);
    const result =
      mode === "login"
        ? await conn.sb.auth.signInWithPassword({ email, password })
        : await conn.sb.auth.signUp({ email, password, options: { emailRedirectTo: `${location.origin}${landing}`, data: { organization_name: String(form.get("organization") || "") || undefined } } });
    setBusy(false);
    if (result.error) return setError(errorMessage(result.error));
    if (mode === "signup" && !result.data.session) return setConfirming(email);
    // A new account starts at onboarding, unless it came for something (an invitation's home page).
    navigate(mode === "signup" ? landing : next || "/", { replace: true });
  }
  async function confirm(event: Event) {
    event.preventDefault();
    const token = String(new FormData(event.target as HTMLFormElement).get("code")).trim();
    setBusy(true);
    setError(null);
    const { error: failed } = await conn.sb.auth.verifyOtp({ email: confirming!, token, type: "signup" });
    setBusy(false);
    if (failed) return setError(errorMessage(failed));
    navigate(landing, { replace: true });
  }
  if (confirming)
    return (
      <main id="main" class="auth">
        <h1>answerwatch</h1>
        <CodeForm onSubmit={confirm} title="Confirm your address" button="Confirm" error={error} busy={busy}>
          We sent a link and a six-digit code to <strong>{confirming}</strong>. Open the link, or enter the code here.
        </CodeForm>
      </main>
    );
  return (
    <main id="main" class="auth">
      <h1>answerwatch</h1>
      <p class="muted">How your brand shows up in AI answers.</p>
      <form onSubmit={submit} class="card">
        <h2>{mode === "login" ? "Sign in" : "Create your account"}</h2>
        <Field label="E-mail">
          <input name="email" type="email" autoComplete="email" required />
        </Field>
        <Field label="Password" hint={mode === "signup" ? "At least 6 characters" : undefined}>
          <input name="password" type="password" autoComplete={mode === "login" ? "current-password" : "new-password"} required minLength={mode === "signup" ? 6 : undefined} />
        </Field>
        {mode === "signup" && (
          <Field label="Organization" hint="Your team or agency; you can rename it later">
            <input name="organization" autoComplete="organization" />
          </Field>
        )}
        <FormError error={error} />
        <button type="submit" class="primary" disabled={busy}>
          {mode === "login" ? "Sign in" : "Sign up"}
        </button>
        <p class="muted">
          {mode === "login" ? (
            <>
              New here? <a href={withNext("/signup", next)}>Create an account</a> · <a href="/forgot">Forgot your password?</a>
            </>
          ) : (
            <>
              Have an account? <a href={withNext("/login", next)}>Sign in</a>
            </>
          )}
        </p>
      </form>
    </main>
  );
}

/**
 * Forgot password: the server mails a link and a code (supabase-js resetPasswordForEmail); the link
 * signs in and lands on the account page to choose a new password, or the code does it here
 * (verifyOtp). A server without mail says so, and who to ask.
 */
export function ForgotPage({ conn }: { conn: Connection }) {
  const [asked, setAsked] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function ask(event: Event) {
    event.preventDefault();
    const email = String(new FormData(event.target as HTMLFormElement).get("email"));
    setBusy(true);
    setError(null);
    const { error } = await conn.sb.auth.resetPasswordForEmail(email, { redirectTo: `${location.origin}/account?recovered=1` });
    setBusy(false);
    if (error) return setError(errorMessage(error));
    setAsked(email);
  }
  async function useCode(event: Event) {
    event.preventDefault();
    const token = String(new FormData(event.target as HTMLFormElement).get("code")).trim();
    setBusy(true);
    setError(null);
    const { error } = await conn.sb.auth.verifyOtp({ email: asked!, token, type: "recovery" });
    setBusy(false);
    if (error) return setError(errorMessage(error));
    navigate("/account?recovered=1", { replace: true });
  }
  return (
    <main id="main" class="auth">
      <h1>answerwatch</h1>
      {!asked ? (
        // Keys: the code's form is a new form, not the e-mail's with its typed value kept.
        <form key="ask" onSubmit={ask} class="card">
          <h2>Forgot your password?</h2>
          <p class="muted">We mail you a link and a code that sign you in once, for an hour; then you choose a new password.</p>
          <Field label="E-mail">
            <input name="email" type="email" autoComplete="email" required />
          </Field>
          <FormError error={error} />
          <button type="submit" class="primary" disabled={busy}>
            Send the link
          </button>
          <p class="muted">
            <a href="/login">Back to sign in</a>
          </p>
        </form>
      ) : (
        <CodeForm key="code" onSubmit={useCode} title="Check your mail" button="Continue" error={error} busy={busy}>
          If <strong>{asked}</strong> has an account, a message with a link and a six-digit code is on its way. Open the link, or enter the code here.
        </CodeForm>
      )}
    </main>
  );
}

// Sign in and sign up through supabase-js (GoTrue wire format); the server's message on refusal.
import { useState } from "preact/hooks";
import { Field } from "../components/ui";
import { navigate } from "../lib/router";
import { errorMessage, type Connection } from "../lib/session";

export function AuthPage({ conn, mode, next }: { conn: Connection; mode: "login" | "signup"; next: string | null }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
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
        : await conn.sb.auth.signUp({ email, password, options: { data: { organization_name: String(form.get("organization") || "") || undefined } } });
    setBusy(false);
    if (result.error) return setError(errorMessage(result.error));
    if (mode === "signup" && !result.data.session) return setError("Account created: sign in to continue.");
    navigate(next || (mode === "signup" ? "/onboarding" : "/"), { replace: true });
  }
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
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy}>
          {mode === "login" ? "Sign in" : "Sign up"}
        </button>
        <p class="muted">
          {mode === "login" ? (
            <>
              New here? <a href="/signup">Create an account</a>
            </>
          ) : (
            <>
              Have an account? <a href="/login">Sign in</a>
            </>
          )}
        </p>
      </form>
    </main>
  );
}

// The web app (issue #19): a client of the product's public interfaces only — supabase-js for auth,
// tables and the insights RPCs, /api/* with the session's token. Preact keeps the bundle small.
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { Shell } from "./components/shell";
import { ErrorBox, Loading } from "./components/ui";
import { match, navigate, onLinkClick, useLocation } from "./lib/router";
import { connect, type Connection, type Session } from "./lib/session";
import { AuthPage, ForgotPage } from "./pages/auth";
import { BrandPages } from "./pages/brand";
import { Home } from "./pages/home";
import { Onboarding } from "./pages/onboarding";
import { Account } from "./pages/account";
import { Shared } from "./pages/shared";

function App() {
  const [conn, setConn] = useState<Connection | null>(null);
  const [failed, setFailed] = useState<unknown>(null);
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const loc = useLocation();

  useEffect(() => {
    connect().then(async (c) => {
      setConn(c);
      setSession((await c.sb.auth.getSession()).data.session);
      c.sb.auth.onAuthStateChange((_event, s) => setSession(s));
    }, setFailed);
  }, []);

  if (failed) return <ErrorBox error={failed} />;
  if (!conn || session === undefined) return <Loading what="Connecting" />;
  // A share link's view needs no account.
  const shared = match("/share/:token", loc.path) ?? match("/share/:token/:page", loc.path);
  if (shared) return <Shared conn={conn} token={shared.token!} page={shared.page ?? "overview"} query={loc.query} />;

  const publicPage = loc.path === "/login" || loc.path === "/signup" || loc.path === "/forgot";
  if (!session) {
    if (!publicPage) {
      navigate(`/login?next=${encodeURIComponent(loc.path + location.search)}`, { replace: true });
      return <Loading />;
    }
    if (loc.path === "/forgot") return <ForgotPage conn={conn} />;
    return <AuthPage conn={conn} mode={loc.path === "/signup" ? "signup" : "login"} next={loc.query.get("next")} />;
  }
  if (publicPage) {
    navigate(loc.query.get("next") || "/", { replace: true });
    return <Loading />;
  }
  const brandRoute = match("/b/:brandId", loc.path) ?? match("/b/:brandId/:page", loc.path) ?? match("/b/:brandId/:page/:itemId", loc.path);
  return (
    <Shell conn={conn} session={session} brandId={brandRoute?.brandId ?? null}>
      {loc.path === "/" ? (
        <Home conn={conn} />
      ) : loc.path === "/onboarding" ? (
        <Onboarding conn={conn} />
      ) : loc.path === "/account" ? (
        <Account conn={conn} session={session} recovered={loc.query.get("recovered") === "1"} />
      ) : brandRoute ? (
        <BrandPages conn={conn} session={session} brandId={brandRoute.brandId!} page={brandRoute.page ?? "overview"} itemId={brandRoute.itemId ?? null} query={loc.query} />
      ) : (
        <p class="state">
          Nothing here. <a href="/">Back to your brands</a>
        </p>
      )}
    </Shell>
  );
}

document.addEventListener("click", onLinkClick);
render(<App />, document.getElementById("app")!);

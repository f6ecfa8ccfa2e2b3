// Auth service: users, organizations on sign-up, sessions and rotated refresh tokens.
// Routes (routes.ts) only validate and shape; every rule lives here.
import type { Config } from "../../config";
import { AppError } from "../../http/errors";
import { addressKey, memoryRateLimits, type RateLimitStore } from "../../http/rate-limit";
import { escapeHtml, type MailService } from "../../mail/service";
import { canonicalEmail, normalizeEmail } from "./email";
import { userJson, type SessionJson, type UserJson } from "./model";
import { createPasswordChecker, hashPassword, passwordProblems } from "./passwords";
import type { AuthStore, NewUser, OneTimeTokenType, SessionSelector } from "./store";
import { TokenError, type TokenService } from "./tokens";

export { ORG_ROLES, type OrgRole } from "../../common/identity";
import { ORG_ROLES, type AuthenticatedUser, type OrgRole } from "../../common/identity";
import { opaqueToken, sha256Hex } from "../../common/tokens";
export type { AuthenticatedUser };

/** GoTrue's refresh-token reuse interval: a token replaced this recently may be used again. */
export const REFRESH_REUSE_INTERVAL_MS = 10_000;

export interface AuthServiceDeps {
  store: AuthStore;
  config: Pick<Config, "auth" | "publicUrl">;
  /** Where users reach this server (PUBLIC_URL, or the address it listens on): mailed links point there. */
  publicUrl?: () => string;
  tokens: TokenService;
  now?: () => Date;
  /** Where the sign-up and password limits count (stores.rateLimits: shared by the instances on Postgres); in this process by default. */
  limits?: RateLimitStore;
  /** Outgoing mail (recovery); without it, or with it off, /recover says the server sends no mail. */
  mail?: MailService;
}

/** How long a mailed link or code works (GoTrue's default OTP expiry). */
const ONE_TIME_TOKEN_MS = 3_600_000;
/** GoTrue's verification types and the one-time token each consumes ("email" is the newer name of "signup"). */
const VERIFY_TYPES = { recovery: "recovery", signup: "confirmation", email: "confirmation", invite: "invite", email_change: "email_change" } as const satisfies Record<string, OneTimeTokenType>;
type VerifyType = keyof typeof VERIFY_TYPES;
const TOKEN_TYPES: Record<VerifyType, OneTimeTokenType> = VERIFY_TYPES;
const verifyType = (raw: unknown): VerifyType | null => (typeof raw === "string" && Object.hasOwn(VERIFY_TYPES, raw) ? (raw as VerifyType) : null);
const tokenFailed = () => new AppError(403, "otp_expired", "Token has expired or is invalid");
const emailTaken = () => new AppError(422, "email_exists", "A user with this email address has already been registered");
const tooSoon = () => new AppError(429, "over_email_send_rate_limit", "For security purposes, you can only request this once every 60 seconds");

/** A six-digit code (a modulo bias of 1 in 4,294: nothing a code that works once, for an hour, minds). */
const sixDigits = () => String(crypto.getRandomValues(new Uint32Array(1))[0]! % 1_000_000).padStart(6, "0");



/** `base` and ten random characters from a-z0-9 (about 52 bits). */
export function generatedSlug(base: string): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  const suffix = Array.from(crypto.getRandomValues(new Uint8Array(10)), (b) => alphabet[b % 36]).join("");
  return `${base.slice(0, 40).replace(/-+$/, "") || "org"}-${suffix}`;
}

export function slugify(text: string): string {
  return (
    text
      .normalize("NFKD")
      .replace(/[\u0300-\u036f]/g, "")
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 48) || "org"
  );
}

/**
 * Most a user's metadata may hold, as JSON: it rides in every access token and is read at every
 * sign-in and refresh, and an update merges into it — without a cap, each call could grow it by a
 * request body (review finding).
 */
const MAX_METADATA_CHARS = 16_384;

function boundedMetadata<T extends Record<string, unknown>>(metadata: T, field: string): T {
  if (JSON.stringify(metadata).length > MAX_METADATA_CHARS) throw new AppError(400, "validation_failed", `${field} holds at most ${MAX_METADATA_CHARS} characters of JSON`);
  return metadata;
}

export function createAuthService(deps: AuthServiceDeps) {
  const { store, tokens } = deps;
  const now = deps.now ?? (() => new Date());
  const passwords = createPasswordChecker();
  const clock = () => now().getTime();
  const perMinute = deps.config.auth.passwordAttemptsPerMinute;
  // Limits are per client address, never per e-mail alone: a limit on the e-mail would let anyone
  // anywhere lock its owner out. Per (address, e-mail) every attempt counts; per address only
  // failures, with five times the budget, since one address may hold many users (an office's NAT).
  const limits = deps.limits ?? memoryRateLimits(clock);
  const attemptsByAddressAndEmail = limits.limiter("auth.attempts", { limit: perMinute, windowMs: 60_000 });
  const failuresByAddress = limits.limiter("auth.failures", { limit: perMinute * 5, windowMs: 60_000 });
  const signupsByAddress = limits.limiter("auth.signups", { limit: deps.config.auth.signupsPerHour, windowMs: 3_600_000 });
  const rateLimited = () => new AppError(429, "over_request_rate_limit", "Request rate limit reached");
  // Recovery mail: per address, and one a minute per e-mail (GoTrue's), whether or not it has an
  // account (the answer must not tell). Codes: attempts per address, and per address and e-mail
  // few enough that a six-digit code cannot be guessed within its hour.
  const recoveriesByAddress = limits.limiter("auth.recover", { limit: 10, windowMs: 3_600_000 });
  const recoveriesByEmail = limits.limiter("auth.recover.email", { limit: 1, windowMs: 60_000 });
  const verificationsByAddress = limits.limiter("auth.verify", { limit: 30, windowMs: 300_000 });
  const codesByAddressAndEmail = limits.limiter("auth.verify.code", { limit: 10, windowMs: 3_600_000 });
  // Wrong codes for one address from anywhere: many client addresses would otherwise each get their
  // ten guesses at one six-digit code. The mailed link still works meanwhile.
  const wrongCodesByEmail = limits.limiter("auth.verify.code.wrong", { limit: 10, windowMs: 3_600_000 });
  const siteUrl = () => (deps.publicUrl?.() ?? deps.config.publicUrl).replace(/\/+$/, "");

  /** Where a mailed link may send its session: this server's own origin only (anything else would hand the tokens to another site). */
  function safeRedirect(to: unknown): string {
    const site = siteUrl();
    if (typeof to !== "string" || !to) return `${site}/`;
    try {
      const url = new URL(to, `${site}/`);
      return url.origin === new URL(site).origin ? url.href : `${site}/`;
    } catch {
      return `${site}/`;
    }
  }

  /** A link and a code of `verifyType` for the user (the previous unused one of its kind stops working). */
  async function issueToken(userId: string, verifyType: VerifyType, redirectTo: unknown, tokenPrefix = ""): Promise<{ link: string; code: string }> {
    const token = tokenPrefix + opaqueToken();
    const code = sixDigits();
    const at = now();
    await store.createOneTimeToken({ userId, type: TOKEN_TYPES[verifyType], tokenHash: sha256Hex(token), otpHash: sha256Hex(code), at: at.toISOString(), expiresAt: new Date(at.getTime() + ONE_TIME_TOKEN_MS).toISOString() });
    return { link: `${siteUrl()}/auth/v1/verify?token=${token}&type=${verifyType}&redirect_to=${encodeURIComponent(safeRedirect(redirectTo))}`, code };
  }
  const issueRecovery = (userId: string, redirectTo: unknown) => issueToken(userId, "recovery", redirectTo);

  /** The sign-up confirmation mail (AUTH_CONFIRM_EMAIL): a link and a code that confirm the address and sign in once. */
  async function mailConfirmation(user: { id: string; email: string }, redirectTo: unknown) {
    const { link, code } = await issueToken(user.id, "signup", redirectTo);
    const site = siteUrl();
    const text = [`Confirm that ${user.email} is yours to finish signing up to answerwatch at ${site}.`, "", "Open this link (it works once, for one hour):", link, "", `Or enter this code where you signed up: ${code}`, "", "If you did not sign up, ignore this message: nothing happens without the confirmation."].join("\n");
    const html = `<p>Confirm that <b>${escapeHtml(user.email)}</b> is yours to finish signing up to answerwatch at ${escapeHtml(site)}.</p><p><a href="${escapeHtml(link)}">Confirm your address</a> — the link works once, for one hour.</p><p>Or enter this code where you signed up: <b>${code}</b></p><p>If you did not sign up, ignore this message.</p>`;
    await deps.mail!.queue({ kind: "confirmation", to: user.email, subject: "Confirm your answerwatch account", text, html });
  }

  /**
   * A change of address waits for the new address to prove itself (AUTH_CONFIRM_EMAIL): the link
   * mailed there carries the address (its token is the address in base64url, a dot, then random
   * bytes: only its hash is stored), and the change is made when the link is used.
   */
  async function mailEmailChange(user: { id: string; email: string }, newEmail: string, redirectTo: unknown) {
    const { link } = await issueToken(user.id, "email_change", redirectTo, `${Buffer.from(newEmail).toString("base64url")}.`);
    const site = siteUrl();
    const text = [`Confirm that ${newEmail} is the new address of your answerwatch account at ${site} (now ${user.email}).`, "", "Open this link (it works once, for one hour):", link, "", "If you did not ask for this, ignore this message: the address does not change without it."].join("\n");
    const html = `<p>Confirm that <b>${escapeHtml(newEmail)}</b> is the new address of your answerwatch account at ${escapeHtml(site)}.</p><p><a href="${escapeHtml(link)}">Confirm the new address</a> — the link works once, for one hour.</p><p>If you did not ask for this, ignore this message.</p>`;
    await deps.mail!.queue({ kind: "confirmation", to: newEmail, subject: "Confirm your new answerwatch address", text, html });
  }

  /**
   * Tells the former address that the account's address changed (GoTrue's "email changed" notice):
   * a takeover through a stolen session is seen by the one who held the address. Only where
   * addresses are proven (a link mailed to the new one made the change); an immediate change would
   * let an account mail any address it had set.
   */
  async function mailAddressChanged(formerEmail: string, newEmail: string) {
    const site = siteUrl();
    const text = [`The address of your answerwatch account at ${site} changed from ${formerEmail} to ${newEmail}.`, "", `If you did not do this, someone else holds your account: reset its password from ${site}/forgot with the new address, or ask the server's operator.`].join("\n");
    const html = `<p>The address of your answerwatch account at ${escapeHtml(site)} changed from <b>${escapeHtml(formerEmail)}</b> to <b>${escapeHtml(newEmail)}</b>.</p><p>If you did not do this, someone else holds your account: ask the server's operator.</p>`;
    await deps.mail!.queue({ kind: "notice", to: formerEmail, subject: "Your answerwatch address changed", text, html });
  }

  /** The new address an e-mail change link carries, or null. */
  function changedEmailOf(token: string): string | null {
    const dot = token.indexOf(".");
    if (dot <= 0 || dot > 700) return null;
    try {
      return normalizeEmail(Buffer.from(token.slice(0, dot), "base64url").toString("utf8"));
    } catch {
      return null;
    }
  }

  /** Uses a mailed token (by its link's hash, or by the address's code); an invitation or confirmation also confirms the address. Its user, or null. */
  async function consumeToken(type: VerifyType, by: { tokenHash: string } | { userId: string; otpHash: string }, token?: string): Promise<string | null> {
    const at = now().toISOString();
    // An e-mail change is made by its link only (the link names the new address; no code is mailed).
    const newEmail = type === "email_change" ? (token !== undefined && "tokenHash" in by ? changedEmailOf(token) : null) : undefined;
    if (newEmail === null) return null;
    // The token first: asking whether the address it names is taken before knowing the token real
    // told anyone with a made-up token which addresses have accounts. One taken since the link was
    // mailed is refused below, the link used up.
    const userId = await store.consumeOneTimeToken({ type: TOKEN_TYPES[type], at, ...by });
    if (userId && newEmail) {
      const former = (await store.userById(userId))?.email;
      try {
        await store.updateUser({ id: userId, patch: { email: newEmail, emailConfirmedAt: at, updatedAt: at } });
      } catch (error) {
        // Taken since the link was mailed (the unique index said so).
        if (await store.findUserByEmail(newEmail)) throw emailTaken();
        throw error;
      }
      if (former && former !== newEmail && deps.mail?.enabled) await mailAddressChanged(former, newEmail);
    } else if (userId && type !== "recovery") {
      const user = await store.userById(userId);
      if (user && !user.emailConfirmedAt) await store.updateUser({ id: userId, patch: { emailConfirmedAt: at, updatedAt: at } });
    }
    return userId;
  }


  function checkPassword(password: unknown) {
    const reasons = passwordProblems(password, deps.config.auth.passwordMinLength);
    if (reasons.length)
      throw new AppError(422, "weak_password", `Password should be at least ${deps.config.auth.passwordMinLength} characters.`, {
        fields: { weak_password: { reasons } },
      });
  }

  async function issueSession(userId: string, sessionId: string, refreshToken: string): Promise<SessionJson> {
    const user = (await store.userById(userId))!;
    const nowS = Math.floor(now().getTime() / 1000);
    const json = userJson(user);
    const { token, expiresAt } = await tokens.sign(
      {
        sub: user.id,
        role: "authenticated",
        email: user.email,
        phone: "",
        app_metadata: json.app_metadata,
        user_metadata: json.user_metadata,
        aal: "aal1",
        amr: [{ method: "password", timestamp: nowS }],
        session_id: sessionId,
        is_anonymous: false,
      },
      nowS,
    );
    return { access_token: token, token_type: "bearer", expires_in: tokens.expirySeconds, expires_at: expiresAt, refresh_token: refreshToken, user: json };
  }

  async function startSession(userId: string): Promise<SessionJson> {
    const sessionId = crypto.randomUUID();
    const refresh = opaqueToken();
    await store.startSession({ sessionId, userId, refreshTokenId: crypto.randomUUID(), tokenHash: sha256Hex(refresh), at: now().toISOString() });
    return issueSession(userId, sessionId, refresh);
  }

  const revokeSessions = (which: SessionSelector) => store.revokeSessions({ ...which, at: now().toISOString() });

  /** Creates a user (and, unless `organization` is given, an organization they own). */
  async function createUser(input: {
    email: unknown;
    password: unknown;
    userMetadata?: Record<string, unknown>;
    appMetadata?: Record<string, unknown>;
    confirmed?: boolean;
    organization?: { id: string; role: OrgRole } | { name: string; role?: OrgRole };
  }) {
    const email = normalizeEmail(input.email);
    checkPassword(input.password);
    if (await store.findUserByEmail(email)) throw new AppError(422, "user_already_exists", "User already registered");
    const passwordHash = await hashPassword(input.password as string);
    const at = now().toISOString();
    const userId = crypto.randomUUID();
    const userMetadata = boundedMetadata(input.userMetadata ?? {}, "user_metadata");
    boundedMetadata(input.appMetadata ?? {}, "app_metadata");
    const orgName =
      input.organization && "name" in input.organization
        ? input.organization.name
        : typeof userMetadata.organization_name === "string" && userMetadata.organization_name.trim()
          ? userMetadata.organization_name.trim()
          : `${email.split("@")[0]}'s organization`;
    let membership: NewUser["membership"];
    if (input.organization && "id" in input.organization) membership = { organizationId: input.organization.id, role: input.organization.role };
    else {
      // A generated slug always carries a random suffix: a bare one (or a 409 on it) would tell
      // whether someone whose e-mail starts the same way has signed up. Ten candidates at most.
      const base = slugify(orgName);
      const role = (input.organization && "role" in input.organization && input.organization.role) || "owner";
      membership = { organization: { id: crypto.randomUUID(), name: orgName }, slugs: Array.from({ length: 10 }, () => generatedSlug(base)), role };
    }
    const user = await store.createUser({
      id: userId,
      email,
      passwordHash,
      userMetadata,
      appMetadata: input.appMetadata ?? {},
      emailConfirmedAt: input.confirmed === false ? null : at,
      at,
      membership,
    });
    if (!user) throw new AppError(422, "user_already_exists", "User already registered");
    return user;
  }

  return {
    tokens,

    /** `address`: the client's address (routes.ts), which AUTH_SIGNUP_RATE_LIMIT_PER_HOUR counts against. */
    async signUp(body: { email?: unknown; password?: unknown; data?: unknown }, address: string, redirectTo?: unknown): Promise<SessionJson | (UserJson & { confirmation_sent_at: string })> {
      if (deps.config.auth.disableSignup) throw new AppError(422, "signup_disabled", "Signups not allowed for this instance");
      // Every attempt counts, failed ones too: a 422 user_already_exists tells whether an address has an account.
      if (!(await signupsByAddress.hit(addressKey(address)))) throw rateLimited();
      const data = body.data && typeof body.data === "object" && !Array.isArray(body.data) ? (body.data as Record<string, unknown>) : {};
      if (!deps.config.auth.confirmEmail) {
        const user = await createUser({ email: body.email, password: body.password, userMetadata: data });
        return startSession(user.id);
      }
      // GoTrue without autoconfirm: the user, no session, until the mailed link or code is used.
      const user = await createUser({ email: body.email, password: body.password, userMetadata: data, confirmed: false });
      await mailConfirmation(user, redirectTo);
      return { ...userJson(user), confirmation_sent_at: now().toISOString() };
    },

    /** GoTrue's /resend for a sign-up confirmation: {} whether or not there is such an unconfirmed account. */
    async resend(body: { type?: unknown; email?: unknown }, redirectTo: unknown, address: string): Promise<Record<string, never>> {
      if (body.type !== "signup") throw new AppError(400, "validation_failed", "type must be signup");
      if (!deps.config.auth.confirmEmail) throw new AppError(422, "validation_failed", "This server does not ask to confirm addresses (AUTH_CONFIRM_EMAIL is off)");
      const email = normalizeEmail(body.email);
      if (!(await recoveriesByAddress.hit(addressKey(address)))) throw rateLimited();
      if (!(await recoveriesByEmail.hit(email))) throw tooSoon();
      const user = await store.findUserByEmail(email);
      if (user && !user.emailConfirmedAt) await mailConfirmation(user, redirectTo);
      return {};
    },

    /**
     * GoTrue's admin /invite (service role): an account for the address, unconfirmed and without a
     * usable password, and a mail whose link confirms it and signs in once; the invited person then
     * chooses a password. (Inviting into an organization is /api/organizations/:id/invitations.)
     */
    async invite(body: { email?: unknown; data?: unknown }, redirectTo: unknown): Promise<UserJson> {
      if (!deps.mail?.enabled) throw new AppError(422, "email_sending_disabled", "This server sends no mail (SMTP_URL is not set): add the user with `answerwatch user add` instead");
      const data = body.data && typeof body.data === "object" && !Array.isArray(body.data) ? (body.data as Record<string, unknown>) : {};
      const user = await createUser({ email: body.email, password: opaqueToken(), userMetadata: data, confirmed: false });
      const { link, code } = await issueToken(user.id, "invite", redirectTo ?? "/account?invited=1");
      const site = siteUrl();
      const text = [`You have been invited to answerwatch at ${site} as ${user.email}.`, "", "Open this link to accept and choose a password (it works once, for one hour):", link, "", `Or enter this code: ${code}`].join("\n");
      const html = `<p>You have been invited to answerwatch at ${escapeHtml(site)} as <b>${escapeHtml(user.email)}</b>.</p><p><a href="${escapeHtml(link)}">Accept and choose a password</a> — the link works once, for one hour.</p><p>Or enter this code: <b>${code}</b></p>`;
      await deps.mail.queue({ kind: "invite", to: user.email, subject: "You have been invited to answerwatch", text, html });
      return { ...userJson(user), invited_at: now().toISOString() } as UserJson;
    },

    /** `address`: the client's address (routes.ts); attempts are limited per address and per (address, e-mail). */
    async signInWithPassword(body: { email?: unknown; password?: unknown }, address: string): Promise<SessionJson> {
      if (typeof body.email !== "string" || !body.email.trim() || typeof body.password !== "string")
        throw new AppError(400, "validation_failed", "An email address and a password are required");
      const email = canonicalEmail(body.email);
      const client = addressKey(address);
      if (!(await failuresByAddress.allows(client)) || !(await attemptsByAddressAndEmail.hit(`${client} ${email}`))) throw rateLimited();
      const user = await store.findUserByEmail(email);
      const ok = await passwords.check(body.password, user?.passwordHash);
      if (!user || !ok) {
        await failuresByAddress.hit(client);
        throw new AppError(400, "invalid_credentials", "Invalid login credentials");
      }
      // Told only to whoever knows the password, as GoTrue does.
      if (deps.config.auth.confirmEmail && !user.emailConfirmedAt) throw new AppError(400, "email_not_confirmed", "Email not confirmed");
      return startSession(user.id);
    },

    /**
     * GoTrue's /recover: mails a link and a code that sign the user in once (then they set a new
     * password with PUT /user). Answers {} whether or not the address has an account.
     */
    async recover(body: { email?: unknown }, redirectTo: unknown, address: string): Promise<Record<string, never>> {
      if (!deps.mail?.enabled)
        throw new AppError(422, "email_sending_disabled", "This server sends no mail (SMTP_URL is not set): an operator can make a recovery link with `answerwatch user recovery-link --email ADDRESS`");
      const email = normalizeEmail(body.email);
      if (!(await recoveriesByAddress.hit(addressKey(address)))) throw rateLimited();
      if (!(await recoveriesByEmail.hit(email))) throw tooSoon();
      const user = await store.findUserByEmail(email);
      if (!user) return {};
      const { link, code } = await issueRecovery(user.id, redirectTo);
      const site = siteUrl();
      const text = [
        `Someone (we hope you) asked to reset the password of the answerwatch account ${user.email} at ${site}.`,
        "",
        "Open this link to choose a new password. It works once, for one hour:",
        link,
        "",
        `Or enter this code where you asked: ${code}`,
        "",
        "If you did not ask, ignore this message: your password stays as it is.",
      ].join("\n");
      const html = `<p>Someone (we hope you) asked to reset the password of the answerwatch account <b>${escapeHtml(user.email)}</b> at ${escapeHtml(site)}.</p><p><a href="${escapeHtml(link)}">Choose a new password</a> — the link works once, for one hour.</p><p>Or enter this code where you asked: <b>${code}</b></p><p>If you did not ask, ignore this message: your password stays as it is.</p>`;
      await deps.mail.queue({ kind: "recovery", to: user.email, subject: "Reset your answerwatch password", text, html });
      return {};
    },

    /** The CLI's recovery link for an operator to pass on (no mail needed); null when the address has no account. */
    async recoveryLink(emailInput: string, redirectTo?: string): Promise<{ link: string; code: string } | null> {
      const user = await store.findUserByEmail(normalizeEmail(emailInput));
      return user ? issueRecovery(user.id, redirectTo) : null;
    },

    /** POST /verify: a recovery code with its e-mail, or the link's token as token_hash; a session, once. */
    async verify(body: { type?: unknown; email?: unknown; token?: unknown; token_hash?: unknown }, address: string): Promise<SessionJson> {
      const type = verifyType(body.type);
      if (!type) throw new AppError(400, "validation_failed", `type must be one of ${Object.keys(VERIFY_TYPES).join(", ")}`);
      if (!(await verificationsByAddress.hit(addressKey(address)))) throw rateLimited();
      let userId: string | null;
      if (typeof body.token_hash === "string" && body.token_hash) userId = await consumeToken(type, { tokenHash: sha256Hex(body.token_hash) }, body.token_hash);
      else if (typeof body.email === "string" && typeof body.token === "string" && body.token) {
        const email = normalizeEmail(body.email);
        if (!(await codesByAddressAndEmail.hit(`${addressKey(address)} ${email}`))) throw rateLimited();
        if (!(await wrongCodesByEmail.allows(email))) throw rateLimited();
        const user = await store.findUserByEmail(email);
        userId = user ? await consumeToken(type, { userId: user.id, otpHash: sha256Hex(body.token.trim()) }) : null;
        if (!userId) await wrongCodesByEmail.hit(email);
      } else throw new AppError(400, "validation_failed", "Verify requires a token and an email, or a token_hash");
      if (!userId) throw tokenFailed();
      return startSession(userId);
    },

    /** GET /verify (the mailed link): where to send the browser — the session in the URL's fragment, as GoTrue does, or the error. */
    async verifyLink(query: { token?: unknown; type?: unknown; redirect_to?: unknown }, address: string): Promise<string> {
      const redirect = safeRedirect(query.redirect_to);
      const failed = (code: string, description: string) => `${redirect}#error=access_denied&error_code=${code}&error_description=${encodeURIComponent(description)}`;
      const type = verifyType(query.type);
      if (!type || typeof query.token !== "string" || !query.token) return failed("validation_failed", "The link is not a verification link");
      if (!(await verificationsByAddress.hit(addressKey(address)))) return failed("over_request_rate_limit", "Too many attempts: try again in a few minutes");
      let userId: string | null;
      try {
        userId = await consumeToken(type, { tokenHash: sha256Hex(query.token) }, query.token);
      } catch (error) {
        if (error instanceof AppError && error.status < 500) return failed(error.code, error.message);
        throw error;
      }
      if (!userId) return failed("otp_expired", "Email link is invalid or has expired");
      const s = await startSession(userId);
      const fragment = new URLSearchParams({ access_token: s.access_token, expires_at: String(s.expires_at), expires_in: String(s.expires_in), refresh_token: s.refresh_token, token_type: "bearer", type: String(query.type) });
      return `${redirect.split("#")[0]}#${fragment}`;
    },

    async refresh(body: { refresh_token?: unknown }): Promise<SessionJson> {
      if (typeof body.refresh_token !== "string" || !body.refresh_token) throw new AppError(400, "validation_failed", "refresh_token is required");
      const next = opaqueToken();
      const outcome = await store.rotateRefreshToken({
        tokenHash: sha256Hex(body.refresh_token),
        newTokenId: crypto.randomUUID(),
        newTokenHash: sha256Hex(next),
        at: now().toISOString(),
        reuseIntervalMs: REFRESH_REUSE_INTERVAL_MS,
      });
      if (outcome.kind === "not_found") throw new AppError(400, "refresh_token_not_found", "Invalid Refresh Token: Refresh Token Not Found");
      // Reuse of an old token means it leaked: the store ended the whole session family.
      if (outcome.kind === "reused") throw new AppError(400, "refresh_token_already_used", "Invalid Refresh Token: Already Used");
      // Concurrent refreshes (two tabs) within the interval got a sibling token of the same session.
      return issueSession(outcome.userId, outcome.sessionId, next);
    },

    /** Verifies an access token and that its session is still live. Throws TokenError or "session". */
    async authenticate(token: string): Promise<AuthenticatedUser> {
      const claims = await tokens.verify(token);
      const session = await store.sessionById(claims.session_id);
      if (!session || session.revokedAt || session.userId !== claims.sub) throw new SessionGoneError();
      return { id: claims.sub, email: claims.email, sessionId: claims.session_id, claims };
    },

    /**
     * authenticate() and the user's organizations with their role in each. The two lookups run
     * side by side (on Postgres, two pooled connections: one round trip's wait instead of two);
     * the roles are dropped unless the session is live.
     */
    async authenticateWithRoles(token: string): Promise<{ user: AuthenticatedUser; orgRoles: Map<string, OrgRole> }> {
      const claims = await tokens.verify(token);
      const [session, memberships] = await Promise.all([store.sessionById(claims.session_id), store.memberships(claims.sub)]);
      if (!session || session.revokedAt || session.userId !== claims.sub) throw new SessionGoneError();
      const user = { id: claims.sub, email: claims.email, sessionId: claims.session_id, claims };
      return { user, orgRoles: rolesByOrganization(memberships) };
    },

    async getUser(userId: string): Promise<UserJson> {
      const row = await store.userById(userId);
      if (!row) throw new AppError(404, "user_not_found", "User not found");
      return userJson(row);
    },

    /** `sessionId`: the session asking, which a password change keeps (every other session of the account ends, as GoTrue does). */
    async updateUser(userId: string, body: { password?: unknown; data?: unknown; email?: unknown }, redirectTo?: unknown, address = "unknown", sessionId?: string): Promise<UserJson & { new_email?: string; email_change_sent_at?: string }> {
      const row = await store.userById(userId);
      if (!row) throw new AppError(404, "user_not_found", "User not found");
      const patch: Parameters<AuthStore["updateUser"]>[0]["patch"] = { updatedAt: now().toISOString() };
      if (body.password !== undefined) {
        checkPassword(body.password);
        patch.passwordHash = await hashPassword(body.password as string);
      }
      if (body.data !== undefined) {
        if (!body.data || typeof body.data !== "object" || Array.isArray(body.data)) throw new AppError(400, "validation_failed", "data must be an object");
        patch.userMetadata = boundedMetadata({ ...(row.userMetadata as object), ...(body.data as object) }, "user_metadata");
      }
      let newEmail: string | undefined;
      if (body.email !== undefined) {
        const email = normalizeEmail(body.email);
        const other = await store.findUserByEmail(email);
        if (other && other.id !== userId) throw emailTaken();
        // Where addresses are proven (AUTH_CONFIRM_EMAIL), a new one is too before it counts: an
        // address is what an organization's invitation is accepted by (GoTrue's secure change).
        if (email !== row.email && deps.config.auth.confirmEmail) {
          // As the recovery mail: a few an hour per client address, one a minute per account and per address mailed.
          if (!(await recoveriesByAddress.hit(addressKey(address)))) throw rateLimited();
          if (!(await recoveriesByEmail.hit(`user ${userId}`)) || !(await recoveriesByEmail.hit(email))) throw tooSoon();
          newEmail = email;
        } else patch.email = email;
      }
      const user = userJson((await store.updateUser({ id: userId, patch }))!);
      // A new password ends the other sessions: one stolen before a reset (recover, then this) dies with the old password.
      if (patch.passwordHash) await revokeSessions(sessionId ? { userId, exceptSessionId: sessionId } : { userId });
      if (!newEmail) return user;
      await mailEmailChange(row, newEmail, redirectTo);
      return { ...user, new_email: newEmail, email_change_sent_at: now().toISOString() };
    },

    async logout(user: AuthenticatedUser, scope: string): Promise<void> {
      if (scope === "global") await revokeSessions({ userId: user.id });
      else if (scope === "others") await revokeSessions({ userId: user.id, exceptSessionId: user.sessionId });
      else if (scope === "local") await revokeSessions({ sessionId: user.sessionId });
      else throw new AppError(400, "validation_failed", "scope must be global, local or others");
    },

    // ---- admin (service_role) ----
    async adminCreateUser(body: Record<string, unknown>): Promise<UserJson> {
      const orgId = typeof body.organization_id === "string" ? body.organization_id : undefined;
      const role = (typeof body.role === "string" ? body.role : undefined) as OrgRole | undefined;
      if (role && !ORG_ROLES.includes(role)) throw new AppError(400, "validation_failed", `role must be one of ${ORG_ROLES.join(", ")}`);
      if (orgId && !(await store.organizationExists(orgId)))
        throw new AppError(404, "organization_not_found", "Organization not found");
      const userMetadata = (body.user_metadata && typeof body.user_metadata === "object" ? body.user_metadata : {}) as Record<string, unknown>;
      const orgName = typeof body.organization_name === "string" ? body.organization_name : undefined;
      const user = await createUser({
        email: body.email,
        password: body.password,
        userMetadata,
        appMetadata: (body.app_metadata && typeof body.app_metadata === "object" ? body.app_metadata : {}) as Record<string, unknown>,
        confirmed: body.email_confirm !== false,
        organization: orgId ? { id: orgId, role: role ?? "member" } : orgName ? { name: orgName, role: role ?? "owner" } : undefined,
      });
      return userJson(user);
    },

    async adminListUsers(page = 1, perPage = 50) {
      const rows = await store.listUsers({ limit: perPage, offset: (page - 1) * perPage });
      return { users: rows.map(userJson), aud: "authenticated" };
    },

    async adminDeleteUser(id: string): Promise<void> {
      const outcome = await store.removeUser({ id });
      if (outcome.kind === "unknown") throw new AppError(404, "user_not_found", "User not found");
      if (outcome.kind === "last_owner")
        throw new AppError(422, "last_owner", `The user is the last owner of ${outcome.organizations.map((o) => `"${o}"`).join(", ")}: make another member owner, or delete the organization, first`);
    },

    findOrganizationBySlugOrName(nameOrSlug: string) {
      return store.findOrganizationBySlugOrName(nameOrSlug);
    },

    /** The caller's organizations with their role in each. */
    async organizationRoles(userId: string): Promise<Map<string, OrgRole>> {
      return rolesByOrganization(await store.memberships(userId));
    },
  };
}

const rolesByOrganization = (rows: { organizationId: string; role: string }[]) => new Map(rows.map((r) => [r.organizationId, r.role as OrgRole]));

export type AuthService = ReturnType<typeof createAuthService>;

/** The token verified but its session was revoked (logout, refresh-token reuse). */
export class SessionGoneError extends Error {
  constructor() {
    super("Session from session_id claim in JWT does not exist");
  }
}

export { TokenError };

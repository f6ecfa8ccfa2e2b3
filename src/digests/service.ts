// Digests and mailed alerts (issue #31). A member chooses, per brand, weekly or monthly digests (or
// none) and visibility alerts; nobody chooses for someone else, and an API key chooses nothing.
// Each brand's digest of a period is made once (digest_runs), mailed to its subscribers (one message
// each, deduplicated by subscription and period) and recorded as a `digest.<kind>` webhook event for
// the endpoints that name it (chat endpoints get its text). Alerts reuse the visibility.changed
// events the tracking run records: each is mailed once to every member who asked for alerts.
// Mail goes only to an address its owner confirmed for digests (double opt-in): an account's
// address may be one nobody proved, so choosing digests mails a link to confirm it first, and a
// subscriber never asked (one from before this rule) gets that link once, in place of a digest.
import { createHmac, timingSafeEqual } from "node:crypto";
import type { CategoryList } from "../analysis/source-categories";
import type { ApiUser } from "../common/identity";
import { AppError } from "../http/errors";
import type { Logger } from "../http/log";
import type { RateLimitStore } from "../http/rate-limit";
import { sha256Hex } from "../common/tokens";
import { requireUuid } from "../http/validate";
import type { VisibilityAlert } from "../insights/alerts";
import { insightsContext } from "../insights/rpc";
import type { InsightsStore } from "../insights/store";
import type { DateWindow } from "../insights/window";
import type { MailAttachment } from "../mail/store";
import { escapeHtml, type MailService } from "../mail/service";
import { buildDigest, completedPeriod, DIGEST_KINDS, DIGEST_LIST_LIMIT, FREQUENCIES, type DigestKind, type DigestPeriod, type Frequency } from "./model";
import { alertSubject, alertText, digestChatText, digestHtml, digestSubject, digestText } from "./render";
import { alertMailKey, type DigestBrand, type DigestStore } from "./store";

/** Brands digested per kind and call: the rest wait for the next call (every brand's period stays open until it is done). */
export const DIGESTS_PER_CALL = 200;
/** Alert mails looked at per call, over the last ALERT_LOOKBACK_MS. */
const ALERTS_PER_CALL = 500;
const ALERT_LOOKBACK_MS = 2 * 86_400_000;
const SUBSCRIPTIONS_LISTED = 1000;
/** How long a confirmation link works, and how soon another may be mailed to an address not confirmed yet. */
const CONFIRM_LINK_MS = 7 * 86_400_000;
const CONFIRM_RESEND_MS = 3_600_000;
/**
 * Confirmation mails an address gets a day whatever account asks, and an account sends a day:
 * without them one account changing its address (immediate where addresses are not proven), or
 * several passing one address around, could mail any number of strangers.
 */
const CONFIRMATIONS_PER_ADDRESS_DAY = 3;
const CONFIRMATIONS_PER_ACCOUNT_DAY = 5;
/** Subscribers never asked to confirm (from before confirmations) asked per call. */
const UNASKED_PER_CALL = 200;

export interface DigestDeps {
  store: DigestStore;
  insights: InsightsStore;
  sourceCategories?: CategoryList;
  mail?: MailService;
  publicUrl: () => string;
  /** Signs unsubscribe links (the server's JWT secret; a label keeps the two uses apart). */
  secret: string;
  /** The client report of a brand over a window, attached to its digest mails (absent: none attached). */
  report?: (input: { brandId: string; window: DateWindow }) => Promise<{ html: string; filename: string }>;
  now?: () => Date;
  logger?: Logger;
  /** Shared by instances on Postgres: how many confirmation mails an address, and an account, get. */
  limits?: RateLimitStore;
}

export function createDigestService(deps: DigestDeps) {
  const { store } = deps;
  const now = deps.now ?? (() => new Date());
  const confirmationsByAddress = deps.limits?.limiter("digests.confirm.address", { limit: CONFIRMATIONS_PER_ADDRESS_DAY, windowMs: 86_400_000 });
  const confirmationsByAccount = deps.limits?.limiter("digests.confirm.account", { limit: CONFIRMATIONS_PER_ACCOUNT_DAY, windowMs: 86_400_000 });
  const site = () => deps.publicUrl().replace(/\/+$/, "");

  const signature = (id: string) => createHmac("sha256", deps.secret).update(`answerwatch digest unsubscribe:${id}`).digest("base64url");
  const unsubscribeToken = (subscriptionId: string) => `${subscriptionId}.${signature(subscriptionId)}`;
  const unsubscribeUrl = (subscriptionId: string) => `${site()}/digests/unsubscribe?token=${unsubscribeToken(subscriptionId)}`;
  /** RFC 8058 one-click unsubscribe: mail clients POST to the URL; the link in the body opens a page asking to confirm. */
  const listHeaders = (subscriptionId: string) => ({ "List-Unsubscribe": `<${unsubscribeUrl(subscriptionId)}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" });

  const addressSignature = (payload: string) => createHmac("sha256", deps.secret).update(`answerwatch digest address:${payload}`).digest("base64url");
  /** The link confirming `email` as the account's address for digests: the account, an expiry and the address, signed. */
  function confirmationUrl(userId: string, email: string): string {
    const payload = `${userId}.${now().getTime() + CONFIRM_LINK_MS}.${Buffer.from(email).toString("base64url")}`;
    return `${site()}/digests/confirm?token=${payload}.${addressSignature(payload)}`;
  }

  /** The account and address a confirmation token names, if its signature holds and it has not expired. */
  function confirmationOf(token: unknown): { userId: string; email: string } {
    const invalid = new AppError(400, "invalid_token", "This confirmation link is not valid (it may have been cut when copied, or be older than a week)");
    if (typeof token !== "string" || token.length > 1000) throw invalid;
    const parts = token.split(".");
    if (parts.length !== 4) throw invalid;
    const [userId, expires, email, mac] = parts as [string, string, string, string];
    const expected = Buffer.from(addressSignature(`${userId}.${expires}.${email}`));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected) || !(Number(expires) > now().getTime())) throw invalid;
    return { userId, email: Buffer.from(email, "base64url").toString() };
  }

  /**
   * Mails the link confirming the account's address, unless it is confirmed, one went within the
   * hour, or the address or the account had their day's confirmations: whether one was queued.
   */
  async function askToConfirm(userId: string, email: string): Promise<boolean> {
    if (!deps.mail?.enabled) return false;
    const at = now();
    const addressKey = sha256Hex(email);
    if (confirmationsByAddress && !(await confirmationsByAddress.allows(addressKey))) return false;
    if (confirmationsByAccount && !(await confirmationsByAccount.allows(userId))) return false;
    if (!(await store.requestConfirmation({ userId, email, at: at.toISOString(), resendAfter: new Date(at.getTime() - CONFIRM_RESEND_MS).toISOString() }))) return false;
    await confirmationsByAddress?.hit(addressKey);
    await confirmationsByAccount?.hit(userId);
    const link = confirmationUrl(userId, email);
    const text = [
      `Someone signed in to answerwatch at ${site()} as ${email} chose to receive digests or alerts there.`,
      "",
      `If that was you, confirm this address (the link works for a week): ${link}`,
      "",
      "If it was not, ignore this message: nothing more is sent to this address until it is confirmed.",
    ].join("\n");
    const html = `<p>Someone signed in to answerwatch as ${escapeHtml(email)} chose to receive digests or alerts there.</p><p><a href="${escapeHtml(link)}">Confirm this address</a> if that was you (the link works for a week).</p><p>If it was not, ignore this message: nothing more is sent to this address until it is confirmed.</p>`;
    await deps.mail.queue({ kind: "digest_confirmation", to: email, subject: "Confirm your address for answerwatch digests", text, html, dedupeKey: `digest-confirm:${userId}:${email}:${at.toISOString()}` });
    return true;
  }

  /** The subscription a token names, if its signature holds. */
  function subscriptionOf(token: unknown): string {
    const invalid = new AppError(400, "invalid_token", "This unsubscribe link is not valid (it may have been cut when copied)");
    if (typeof token !== "string" || token.length > 200) throw invalid;
    const [id, mac] = token.split(".");
    if (!id || !mac || !/^[0-9a-f-]{36}$/.test(id)) throw invalid;
    const expected = Buffer.from(signature(id));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid;
    return id;
  }

  /** Digests are a person's choice: an API key (a program) makes none. */
  function person(user: ApiUser): void {
    if (user.viaKey) throw new AppError(403, "forbidden", "Digests and alerts are chosen by each member signed in, not by an API key");
  }

  async function digestOf(brand: DigestBrand, period: DigestPeriod) {
    const [suggestions, topics] = await Promise.all([store.openSuggestions({ brandId: brand.brand_id, limit: DIGEST_LIST_LIMIT }), store.topics(brand.brand_id)]);
    return buildDigest(insightsContext(deps.insights, deps.sourceCategories), {
      brand: { id: brand.brand_id, name: brand.brand_name },
      organization: { id: brand.organization_id, name: brand.organization_name },
      period,
      suggestions,
      topics,
      site: site(),
    });
  }

  /** One brand's digest: mails first (each queued once whatever happens next), then the run and its event together. */
  async function sendBrand(brand: DigestBrand, period: DigestPeriod): Promise<{ mails: number }> {
    const digest = await digestOf(brand, period);
    let mails = 0;
    if (deps.mail?.enabled) {
      const recipients = await store.recipients({ brandId: brand.brand_id, kind: period.kind });
      let attachments: MailAttachment[] | null = null;
      if (recipients.some((r) => r.confirmed) && deps.report) {
        const report = await deps.report({ brandId: brand.brand_id, window: period.window });
        attachments = [{ filename: report.filename, contentType: "text/html; charset=utf-8", content: report.html }];
      }
      for (const r of recipients) {
        // Not confirmed: nothing (one never asked gets the link once, from askUnasked).
        if (!r.confirmed) continue;
        const link = unsubscribeUrl(r.subscription_id);
        const id = await deps.mail.queue({
          kind: "digest",
          to: r.email,
          subject: digestSubject(digest),
          text: digestText(digest, link),
          html: digestHtml(digest, link),
          headers: listHeaders(r.subscription_id),
          attachments,
          dedupeKey: `digest:${r.subscription_id}:${period.period}`,
        });
        if (id) mails++;
      }
    }
    const at = now().toISOString();
    await store.recordDigest({ brandId: brand.brand_id, period: period.period, at, event: { organizationId: brand.organization_id, brandId: brand.brand_id, type: `digest.${period.kind}`, data: { ...digest, text: digestChatText(digest) } } });
    return { mails };
  }

  return {
    unsubscribeUrl,

    /** The caller's choice for every brand of their organizations, and whether this server sends mail. */
    async mine(user: ApiUser) {
      person(user);
      const [subscriptions, address] = await Promise.all([
        store.subscriptionsOf({ userId: user.user.id, organizationIds: [...user.orgRoles.keys()], limit: SUBSCRIPTIONS_LISTED }),
        store.address(user.user.id),
      ]);
      return { success: true, mail_enabled: !!deps.mail?.enabled, frequencies: FREQUENCIES, address: address && { email: address.email, confirmed: address.confirmed, confirmation_sent_at: address.requested_at }, subscriptions };
    },

    async set(user: ApiUser, brandIdRaw: unknown, body: unknown) {
      person(user);
      const brandId = requireUuid(brandIdRaw, "brand id");
      if (!body || typeof body !== "object" || Array.isArray(body)) throw new AppError(400, "validation_failed", "The body must be a JSON object");
      const { frequency, alerts } = body as Record<string, unknown>;
      if (!(FREQUENCIES as readonly unknown[]).includes(frequency)) throw new AppError(400, "validation_failed", `frequency must be one of ${FREQUENCIES.join(", ")}`, { details: { allowed: FREQUENCIES } });
      if (alerts !== undefined && typeof alerts !== "boolean") throw new AppError(400, "validation_failed", "alerts must be a boolean");
      const organizationId = await store.brandOrganization(brandId);
      if (!organizationId || !user.orgRoles.has(organizationId)) throw new AppError(404, "not_found", "Brand not found");
      await store.setSubscription({ userId: user.user.id, brandId, frequency: frequency as Frequency, alerts: alerts === true, at: now().toISOString() });
      const address = await store.address(user.user.id);
      const wantsMail = frequency !== "none" || alerts === true;
      const confirmationSent = wantsMail && !!address && !address.confirmed && (await askToConfirm(user.user.id, address.email));
      return { success: true, brand_id: brandId, frequency, alerts: alerts === true, mail_enabled: !!deps.mail?.enabled, address_confirmed: !!address?.confirmed, confirmation_sent: confirmationSent };
    },

    /** Mails the caller the link confirming their address again (at most one an hour); whether it went. */
    async sendConfirmation(user: ApiUser) {
      person(user);
      if (!deps.mail?.enabled) throw new AppError(409, "mail_disabled", "This server sends no mail (SMTP_URL is not set)");
      const address = await store.address(user.user.id);
      if (!address) throw new AppError(404, "not_found", "No such account");
      if (address.confirmed) return { success: true, address_confirmed: true, confirmation_sent: false };
      const sent = await askToConfirm(user.user.id, address.email);
      if (!sent) throw new AppError(429, "rate_limited", "A confirmation link was mailed to this address within the hour (or as many as a day allows): look for it, or try again later", { headers: { "retry-after": "3600" } });
      return { success: true, address_confirmed: false, confirmation_sent: true };
    },

    /** Confirms the address a signed link names for digests and alerts (it must still be the account's). */
    async confirmAddress(token: unknown) {
      const { userId, email } = confirmationOf(token);
      if (!(await store.confirmAddress({ userId, email, at: now().toISOString() })))
        throw new AppError(404, "not_found", "This address is no longer the account's (or the account is gone): choose digests again from your account to get a new link");
      return { email };
    },

    /** Turns off the mail of the subscription a signed link names (digests and alerts). */
    async unsubscribe(token: unknown) {
      const done = await store.unsubscribe({ id: subscriptionOf(token), at: now().toISOString() });
      if (!done) throw new AppError(404, "not_found", "This subscription no longer exists");
      return done;
    },

    /** Checks a token without acting on it (the confirmation page). */
    checkToken: (token: unknown) => void subscriptionOf(token),
    /** Checks an address confirmation token without acting on it (its page); the address it names. */
    checkConfirmToken: (token: unknown) => confirmationOf(token).email,

    /** Every digest due now (the last complete week and month of each brand that wants one), up to DIGESTS_PER_CALL per kind. */
    async sendDue() {
      const outcome = { digests: 0, mails: 0, failed: 0 };
      // Subscribers from before confirmations (digests or alerts), never asked: the link, once.
      if (deps.mail?.enabled) for (const r of await store.unaskedSubscribers({ limit: UNASKED_PER_CALL })) if (await askToConfirm(r.user_id, r.email)) outcome.mails++;
      for (const kind of DIGEST_KINDS) {
        const period = completedPeriod(kind as DigestKind, now());
        for (const brand of await store.brandsDue({ kind, period: period.period, limit: DIGESTS_PER_CALL })) {
          // One brand's failure is logged and retried on the next call; the others still go.
          try {
            outcome.mails += (await sendBrand(brand, period)).mails;
            outcome.digests++;
          } catch (error) {
            outcome.failed++;
            deps.logger?.error("digest failed", { brand_id: brand.brand_id, period: period.period, error: String((error as Error)?.stack ?? error) });
          }
        }
      }
      return outcome;
    },

    /** Queues a mail for each recent visibility.changed event and each member who asked for alerts of its brand (once each). */
    async mailAlerts() {
      if (!deps.mail?.enabled) return { mails: 0 };
      let mails = 0;
      const since = new Date(now().getTime() - ALERT_LOOKBACK_MS).toISOString();
      for (const row of await store.alertMails({ since, limit: ALERTS_PER_CALL })) {
        const alert = JSON.parse(row.payload) as VisibilityAlert;
        const link = unsubscribeUrl(row.subscription_id);
        const overview = `${site()}/b/${row.brand_id}?from=${alert.window.from}&to=${alert.window.to}`;
        const id = await deps.mail.queue({
          kind: "alert",
          to: row.email,
          subject: alertSubject(row.brand_name, alert),
          text: alertText(row.brand_name, alert, overview, link),
          html: null,
          headers: listHeaders(row.subscription_id),
          dedupeKey: alertMailKey(row.event_id, row.subscription_id),
        });
        if (id) mails++;
      }
      return { mails };
    },
  };
}

export type DigestService = ReturnType<typeof createDigestService>;

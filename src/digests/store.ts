// What digests and mailed alerts keep (digest_subscriptions, digest_runs) and read (members, brands,
// suggestions, topics, visibility.changed events). Backends: store.sqlite.ts, store.pg.ts; the
// contract both keep is tests/contracts/digests.contract.ts. Recipients are always current members
// of the brand's organization: a subscription outlives nothing it was made under.
import type { WebhookEvent } from "../webhooks/events";
import type { DigestKind, DigestSuggestion, Frequency } from "./model";

export interface SubscriptionRow {
  brand_id: string;
  brand_name: string;
  organization_id: string;
  organization_name: string;
  frequency: Frequency;
  alerts: boolean;
}

export interface DigestBrand {
  brand_id: string;
  brand_name: string;
  organization_id: string;
  organization_name: string;
}

export interface Recipient {
  subscription_id: string;
  user_id: string;
  email: string;
  /** The address was confirmed for digests (a link mailed to it followed): only then is a digest sent. */
  confirmed: boolean;
}

/** An account's address and where its confirmation for digests stands. */
export interface DigestAddress {
  email: string;
  confirmed: boolean;
  requested_at: string | null;
}

export interface AlertMail {
  event_id: string;
  brand_id: string;
  brand_name: string;
  /** The event's data (a VisibilityAlert), as JSON text. */
  payload: string;
  created_at: string;
  subscription_id: string;
  email: string;
}

export interface DigestStore {
  /** Every brand of the given organizations with the user's choice for it (none, no alerts when unset), by organization then brand name; at most `limit`. */
  subscriptionsOf(input: { userId: string; organizationIds: string[]; limit: number }): Promise<SubscriptionRow[]>;
  /** The brand's organization (null when there is no such brand). */
  brandOrganization(brandId: string): Promise<string | null>;
  /** Sets the user's choice for a brand (a row with none and no alerts is removed). */
  setSubscription(input: { userId: string; brandId: string; frequency: Frequency; alerts: boolean; at: string }): Promise<void>;
  /** Turns a subscription's mail off (frequency none, no alerts); false when there is no such subscription. */
  unsubscribe(input: { id: string; at: string }): Promise<{ brand_name: string; email: string } | null>;
  /**
   * The brands that want a digest of this kind — a current member subscribed, or an active webhook
   * endpoint naming `digest.<kind>` (for its brand, or every brand of its organization) — and have
   * none for `period` yet; at most `limit`, oldest brand first.
   */
  brandsDue(input: { kind: DigestKind; period: string; limit: number }): Promise<DigestBrand[]>;
  /** The current members subscribed to this kind of the brand's digest, with their address's confirmation. */
  recipients(input: { brandId: string; kind: DigestKind }): Promise<Recipient[]>;
  /** The account's current address and its confirmation for digests (null: no such account). */
  address(userId: string): Promise<DigestAddress | null>;
  /**
   * Records that a confirmation is mailed to the account's `email` now, unless it is confirmed or
   * one was asked at or after `resendAfter`: true when the mail should go.
   */
  requestConfirmation(input: { userId: string; email: string; at: string; resendAfter: string }): Promise<boolean>;
  /** Current members subscribed to any mail (a digest or alerts) whose address was never asked to confirm; at most `limit`. */
  unaskedSubscribers(input: { limit: number }): Promise<{ user_id: string; email: string }[]>;
  /** Confirms `email` for the account, if it is still the account's address: false otherwise. */
  confirmAddress(input: { userId: string; email: string; at: string }): Promise<boolean>;
  /** The brand's open suggestions (new, accepted, in progress), high priority first, then newest; at most `limit`. */
  openSuggestions(input: { brandId: string; limit: number }): Promise<DigestSuggestion[]>;
  /** The brand's topics (for the names of topic moves). */
  topics(brandId: string): Promise<{ id: string; name: string }[]>;
  /** Records the brand's digest of `period` and its webhook event, in one transaction; false (nothing written) when it was recorded already. */
  recordDigest(input: { brandId: string; period: string; event: WebhookEvent; at: string }): Promise<boolean>;
  /**
   * visibility.changed events created since `since`, each with every current member who asked for
   * alerts of its brand before it happened, at a confirmed address, less the pairs already queued (a mail whose dedupe key
   * is alertMailKey's); at most `limit` pairs, oldest first.
   */
  alertMails(input: { since: string; limit: number }): Promise<AlertMail[]>;
}

/**
 * The outbox's dedupe key of an alert mail: one per event and subscription. The stores leave out
 * the pairs queued under it, so a full page of old pairs never hides newer ones.
 */
export const alertMailKey = (eventId: string, subscriptionId: string) => `alert:${eventId}:${subscriptionId}`;

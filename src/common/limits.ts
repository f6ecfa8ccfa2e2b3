// Sizes users may give, shared by every write path and the web app's forms (README: Security).

/** Longest prompt text: a prompt is sent to every engine on every run, so its size is work multiplied. */
export const MAX_PROMPT_CHARS = 2000;

/**
 * A brand's pixel tracking code: what a beacon names and what the snippet a site pastes carries.
 * Only these characters, so the snippet (an HTML attribute on every page of a customer's site)
 * can never carry markup, whoever of the organization set the code.
 */
export const TRACKING_CODE = /^[A-Za-z0-9_-]{1,64}$/;

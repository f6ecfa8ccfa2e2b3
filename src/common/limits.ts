// Sizes users may give, shared by every write path and the web app's forms (README: Security).

/** Longest prompt text: a prompt is sent to every engine on every run, so its size is work multiplied. */
export const MAX_PROMPT_CHARS = 2000;

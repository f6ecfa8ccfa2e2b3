// Text from the database printed to an operator's terminal by the CLI: names, addresses, subjects
// and engine messages anyone in an organization (or an upstream) may have set. Control characters
// (an escape sequence can rewrite lines or set the clipboard) and bidi overrides show as U+FFFD;
// the output's own newlines and tabs are added around it, not taken from it.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export const terminalSafe = (text: string): string => text.replace(UNSAFE, "\uFFFD");

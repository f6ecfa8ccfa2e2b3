// E-mail addresses as auth keys: one spelling per address, so two strings a person reads as the same
// address can never be two accounts (NFC vs NFD, a hidden zero-width space, a bidi override).
import { AppError } from "../../http/errors";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Whether text (at most 254 characters: checked first, the pattern backtracks) reads as an address: local@domain.tld. */
export const isEmailFormat = (text: string): boolean => text.length <= 254 && EMAIL.test(text);

// Control, format (zero-width, joiners, soft hyphen, BOM, bidi controls, tags), private-use,
// unassigned, lone surrogates, line/paragraph separators, and whatever Unicode says renders as
// nothing (variation selectors, Hangul fillers, the combining grapheme joiner).
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Cn}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/u;

// Only what a form or a paste plausibly adds around an address; anything else invisible is refused.
const OUTER_WHITESPACE = /^[ \t\r\n]+|[ \t\r\n]+$/g;

/**
 * Longest input looked at: an address is at most 254 characters once trimmed; past this the input is
 * refused before any pattern runs (the trim's backtracking over a megabyte of spaces held the
 * serving thread for minutes: review finding; over 1,024 characters it costs well under a millisecond).
 */
const MAX_INPUT_CHARS = 1024;

const invalid = (why: string) => new AppError(400, "validation_failed", `Unable to validate email address: ${why}`);

/**
 * The one spelling an address is stored and looked up under: trimmed, NFC, lower-case (lower-casing
 * can decompose, hence NFC again). Throws 400 validation_failed for invisible or control characters.
 * No format check: sign-in answers an unknown address with invalid_credentials, as GoTrue does.
 */
export function canonicalEmail(email: unknown): string {
  if (typeof email === "string" && email.length > MAX_INPUT_CHARS) throw invalid("it is too long");
  const canonical = typeof email === "string" ? email.replace(OUTER_WHITESPACE, "").normalize("NFC").toLowerCase().normalize("NFC") : "";
  if (!canonical) throw new AppError(400, "validation_failed", "An email address is required");
  if (INVISIBLE.test(canonical)) throw invalid("it contains invisible or control characters");
  return canonical;
}

/** canonicalEmail plus the format and length a new or changed address must have. */
export function normalizeEmail(email: unknown): string {
  const normalized = canonicalEmail(email);
  if (!isEmailFormat(normalized)) throw invalid("invalid format");
  return normalized;
}

/**
 * The spellings an account may be stored under: the canonical one, and its NFD form for rows
 * written before addresses were NFC-normalized.
 */
export function storedSpellings(canonical: string): string[] {
  const decomposed = canonical.normalize("NFD");
  return decomposed === canonical ? [canonical] : [canonical, decomposed];
}

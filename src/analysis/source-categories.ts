/**
 * What kind of site a cited host is — forum, social, review, editorial, reference, institutional
 * or other — from a shipped list of domains (data/source-categories.json, documented there) that
 * users may extend, and for institutional sites their suffix (.gov, .edu, gov.uk, ac.jp, …).
 * Pure: the list comes in as data.
 */
import shipped from "./data/source-categories.json";
import { SOURCE_CATEGORIES, type CategoryList, type SourceCategory } from "./source-category-names";
import { hostBelongsTo } from "./urls";

export { SOURCE_CATEGORIES, type CategoryList, type SourceCategory };

// Public bodies and universities by suffix: gov/mil/edu/int anywhere in the public suffix, and the
// second-level names countries use for them.
const INSTITUTIONAL_LABELS = new Set(["gov", "gouv", "gob", "go", "govt", "mil", "edu", "ac", "int", "gc", "nhs", "bund"]);

function institutionalBySuffix(host: string): boolean {
  const labels = host.split(".");
  const tld = labels[labels.length - 1]!;
  if (["gov", "mil", "edu", "int"].includes(tld)) return true;
  // e.g. gov.uk, ac.jp, gouv.fr, gc.ca, edu.au: the label just before a two-letter country code.
  return labels.length >= 2 && tld.length === 2 && INSTITUTIONAL_LABELS.has(labels[labels.length - 2]!);
}

export interface SourceClassifier {
  (host: string | null | undefined): SourceCategory;
}

/** A classifier over the shipped list plus `extra` (an extra entry wins over a shipped one for the same host). */
export function createSourceClassifier(extra: CategoryList = {}): SourceClassifier {
  const entries: { domain: string; category: SourceCategory; rank: number }[] = [];
  for (const [rank, list] of [shipped as CategoryList, extra].entries())
    for (const category of SOURCE_CATEGORIES)
      for (const domain of (list as CategoryList)[category as Exclude<SourceCategory, "other">] ?? []) entries.push({ domain: domain.toLowerCase(), category, rank });
  // Most specific first (more labels), then the user's entries before the shipped ones.
  entries.sort((a, b) => b.domain.split(".").length - a.domain.split(".").length || b.rank - a.rank);
  return (host) => {
    if (!host) return "other";
    const h = host.toLowerCase().replace(/^www\./, "").replace(/\.$/, "");
    const hit = entries.find((e) => hostBelongsTo(h, e.domain));
    if (hit) return hit.category;
    return institutionalBySuffix(h) ? "institutional" : "other";
  };
}

// The source categories' names, apart from the classifier (source-categories.ts): config checks a
// user's categories file against them at start, and the classifier's URL parsing (tldts, ~10 MB
// resident) is then loaded only where a host is classified, not by every CLI command.
export const SOURCE_CATEGORIES = ["forum", "social", "review", "editorial", "reference", "institutional", "other"] as const;
export type SourceCategory = (typeof SOURCE_CATEGORIES)[number];

export type CategoryList = Partial<Record<Exclude<SourceCategory, "other">, readonly string[]>>;

// Source categories of cited domains (issue #18): the shipped list, subdomains, the most specific
// entry, institutional suffixes, look-alikes, and a user's own entries.
import { expect, test } from "bun:test";
import shipped from "../../src/analysis/data/source-categories.json";
import { createSourceClassifier, SOURCE_CATEGORIES } from "../../src/analysis/source-categories";

const classify = createSourceClassifier();

test("shipped domains and their subdomains get their category", () => {
  expect(classify("reddit.com")).toBe("forum");
  expect(classify("old.reddit.com")).toBe("forum");
  expect(classify("www.g2.com")).toBe("review");
  expect(classify("en.wikipedia.org")).toBe("reference");
  expect(classify("edition.cnn.com")).toBe("editorial");
  expect(classify("YouTube.com.")).toBe("social");
});

test("the most specific entry wins: news.ycombinator.com is a forum, developer.mozilla.org reference", () => {
  expect(classify("news.ycombinator.com")).toBe("forum");
  expect(classify("ycombinator.com")).toBe("other");
  expect(classify("developer.mozilla.org")).toBe("reference");
  expect(classify("mozilla.org")).toBe("other");
});

test("institutional by suffix: .gov, .edu, .mil, .int, gov.uk, ac.jp, gouv.fr, gc.ca, edu.au; not look-alikes", () => {
  for (const host of ["cdc.gov", "mit.edu", "army.mil", "who.int", "www.gov.uk", "nhs.uk", "u-tokyo.ac.jp", "service-public.gouv.fr", "canada.gc.ca", "unimelb.edu.au", "pubmed.ncbi.nlm.nih.gov"])
    expect({ host, category: classify(host) }).toEqual({ host, category: "institutional" });
  for (const host of ["govtech.com", "edu.example.com", "gov.example", "reddit.com.evil.io", "notreddit.com"]) expect({ host, category: classify(host) }).toEqual({ host, category: "other" });
});

test("unknown, empty and missing hosts are other", () => {
  expect(classify("acme.com")).toBe("other");
  expect(classify("")).toBe("other");
  expect(classify(null)).toBe("other");
});

test("a user's entries extend the list and override the shipped one for the same domain", () => {
  const mine = createSourceClassifier({ review: ["reddit.com", "acme-reviews.io"], editorial: ["blog.acme.com"] });
  expect(mine("reddit.com")).toBe("review");
  expect(mine("acme-reviews.io")).toBe("review");
  expect(mine("blog.acme.com")).toBe("editorial");
  expect(mine("acme.com")).toBe("other");
  // …and the shipped classifier is unchanged by it.
  expect(classify("reddit.com")).toBe("forum");
});

test("the shipped list: known categories only, lower-case domains, none listed twice", () => {
  const seen = new Set<string>();
  for (const [key, list] of Object.entries(shipped)) {
    if (key === "_about") continue;
    expect(SOURCE_CATEGORIES).toContain(key as never);
    for (const domain of list as string[]) {
      expect(domain).toMatch(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/);
      expect(seen.has(domain)).toBe(false);
      seen.add(domain);
    }
  }
  expect(seen.size).toBeGreaterThan(100);
});

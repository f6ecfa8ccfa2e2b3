// Which organization a brand file names (`brand.organization`): its id, or a slug or name only one
// organization answers to. Names are anyone's to choose, so the first of several is never taken.
import { expect, test } from "bun:test";
import { ApplyError, organizationFor } from "../../src/setup/apply";

const victim = { id: "00000000-0000-4000-8000-000000000001", name: "Victim", slug: "acme-x1" };
const other = { id: "00000000-0000-4000-8000-000000000002", name: "acme-x1", slug: "e-1" };

test("a slug or name two organizations answer to is refused, naming both; the id names either", () => {
  expect(() => organizationFor([other, victim], "acme-x1")).toThrow(ApplyError);
  expect(() => organizationFor([other, victim], "acme-x1")).toThrow(/2 organizations answer to "acme-x1".*id 00000000-0000-4000-8000-000000000002.*id 00000000-0000-4000-8000-000000000001/);
  expect(organizationFor([other, victim], victim.id)).toBe(victim);
  expect(organizationFor([other, victim], other.id)).toBe(other);
});

test("a slug or name only one answers to names it; none names nothing", () => {
  expect(organizationFor([other, victim], "Victim")).toBe(victim);
  expect(organizationFor([other, victim], "e-1")).toBe(other);
  expect(() => organizationFor([other, victim], "nobody")).toThrow(/no organization named "nobody"/);
});

test("an organization renamed to another's id does not take that other's files: the id answered by two is refused", () => {
  const renamed = { id: "00000000-0000-4000-8000-000000000003", name: victim.id, slug: "mallory" };
  expect(() => organizationFor([renamed, victim], victim.id)).toThrow(/2 organizations answer to "00000000-0000-4000-8000-000000000001"/);
  expect(organizationFor([renamed, victim], "mallory")).toBe(renamed);
  expect(organizationFor([renamed, victim], renamed.id)).toBe(renamed);
});

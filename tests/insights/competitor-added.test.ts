// backends: sqlite, postgres
// A competitor is looked for in the answers analysed after it was added. One added after the
// previous window began has no comparable count there: its change is "insufficient data", not a
// rise from 0 % that "What changed" would list. One added earlier compares as before.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { testServer } from "../helpers/app";
import { serverDb } from "../helpers/server-db";
import { signedUpClient } from "../helpers/supabase";
import type { Harness } from "../contracts/harness";

let server: Awaited<ReturnType<typeof testServer>>;
let db: Harness;
beforeAll(async () => {
  server = await testServer();
  db = await serverDb(server);
});
afterAll(async () => {
  await db.close();
  await server.stop();
});

const DAY = 86_400_000;
const dayAgo = (n: number) => new Date(Date.now() - n * DAY).toISOString();

test("a competitor added during the comparison has no change; one added before both windows is compared", async () => {
  const owner = await signedUpClient(server.url, server.secrets.anonKey, "Rivals");
  const [{ organization_id }] = await db.inspect<{ organization_id: string }>("SELECT organization_id FROM organization_members WHERE user_id = ?", owner.user.id);
  const brandId = await db.fixtures.brand(organization_id!);
  const late = await db.fixtures.competitor(brandId, "Latecomer", null, dayAgo(5));
  const early = await db.fixtures.competitor(brandId, "Incumbent", null, dayAgo(400));
  const prompts = [await db.fixtures.prompt(brandId, "Which tool is best?"), await db.fixtures.prompt(brandId, "What should a team use?")];
  // The default window is the last 30 days; the previous one the 30 before. Neither competitor is
  // named before; both are named in 8 of the 10 answers of the last days.
  for (const [i, promptId] of [...prompts, ...prompts, ...prompts, ...prompts, ...prompts].entries()) {
    await db.fixtures.result({ brandId, promptId, platform: "chatgpt", createdAt: dayAgo(40 + i), mentioned: false });
    const named = i < 8 ? [{ competitorId: late, mentionCount: 1, position: 1 }, { competitorId: early, mentionCount: 1, position: 2 }] : [];
    await db.fixtures.result({ brandId, promptId, platform: "chatgpt", createdAt: dayAgo(2 + (i % 3)), mentioned: false, competitors: named });
  }
  // Earlier in the current window, before Latecomer was added: 6 answers naming Incumbent only.
  for (const [i, promptId] of [...prompts, ...prompts, ...prompts].entries())
    await db.fixtures.result({ brandId, promptId, platform: "chatgpt", createdAt: dayAgo(20 + i), mentioned: false, competitors: [{ competitorId: early, mentionCount: 1, position: 1 }] });
  const { data: board, error: boardError } = await owner.sb.rpc("insights_competitors", { p_brand_id: brandId });
  expect(boardError).toBeNull();
  const row = (name: string) => (board as { name: string; n: number; answers_mentioning: number; visibility_rate: number; counted_from: string | null }[]).find((r) => r.name === name)!;
  // Latecomer was looked for in the 10 answers since it was added: 8 of 10, not 8 of all 16.
  expect([row("Latecomer").answers_mentioning, row("Latecomer").n, row("Latecomer").counted_from]).toEqual([8, 10, dayAgo(5).slice(0, 10)]);
  expect(row("Latecomer").visibility_rate).toBeCloseTo(0.8, 12);
  // Incumbent, there all along, over every answer of the window: 8 + 6 of 16.
  expect([row("Incumbent").answers_mentioning, row("Incumbent").n, row("Incumbent").counted_from]).toEqual([14, 16, null]);
  const { data, error } = await owner.sb.rpc("insights_overview", { p_brand_id: brandId });
  expect(error).toBeNull();
  const byName = new Map((data as { by_competitor: { name: string; visibility_rate: { value: number; change: { verdict: string; delta: number | null; added_since: string | null } } }[] }).by_competitor.map((c) => [c.name, c.visibility_rate]));
  expect(byName.get("Latecomer")!.value).toBeCloseTo(0.8, 12);
  expect(byName.get("Latecomer")!.change).toMatchObject({ verdict: "insufficient_data", delta: null });
  expect(byName.get("Latecomer")!.change.added_since).toBeString();
  expect(byName.get("Incumbent")!.change).toMatchObject({ verdict: "up", added_since: null });
  expect(byName.get("Incumbent")!.change.delta).toBeCloseTo(14 / 16, 12);
});

test("the share of voice's change says competitors changed only when one was added while the two windows had answers already", async () => {
  const owner = await signedUpClient(server.url, server.secrets.anonKey, "Voices");
  const [{ organization_id }] = await db.inspect<{ organization_id: string }>("SELECT organization_id FROM organization_members WHERE user_id = ?", owner.user.id);
  const brandId = await db.fixtures.brand(organization_id!);
  // Tracking began 45 days ago (inside the previous window) with its competitor: nothing changed.
  const rival = await db.fixtures.competitor(brandId, "Founding rival", null, dayAgo(45));
  const promptId = await db.fixtures.prompt(brandId, "Which tool is best?");
  for (let i = 0; i < 10; i++) await db.fixtures.result({ brandId, promptId, platform: "chatgpt", createdAt: dayAgo(44 - i * 4), mentioned: i % 2 === 0, competitors: [{ competitorId: rival, mentionCount: 1, position: 2 }] });
  const changed = async () => {
    const { data, error } = await owner.sb.rpc("insights_overview", { p_brand_id: brandId });
    expect(error).toBeNull();
    return (data as { share_of_voice: { change: { competitors_changed: boolean } } }).share_of_voice.change.competitors_changed;
  };
  expect(await changed()).toBe(false);
  // One more added 3 days ago, after answers of both windows: its mentions count in part of them only.
  await db.fixtures.competitor(brandId, "Newcomer", null, dayAgo(3));
  expect(await changed()).toBe(true);
});

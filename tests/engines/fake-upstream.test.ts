/** The fake upstream itself: routing, recording and counters the lead's end-to-end tests rely on. */
import { expect, test } from 'bun:test';
import { PREFIXES } from '../fakes/upstream';
import { useFakeUpstream } from './harness';

const up = useFakeUpstream();

test('an unknown route is a 404 and is not recorded', async () => {
  const res = await fetch(`${up.fake.url}${PREFIXES.openai}/chat/completions`, { method: 'POST', body: '{}' });
  expect(res.status).toBe(404);
  expect(up.fake.requests).toHaveLength(0);
});

test('records method, paths, lower-cased headers, query and JSON body', async () => {
  await fetch(`${up.fake.url}${PREFIXES.serpapi}/search.json?engine=google_ai_mode&q=x`, { headers: { 'X-Trace': 'abc' } });
  await fetch(`${up.fake.url}${PREFIXES.anthropic}/messages`, { method: 'POST', body: JSON.stringify({ a: 1 }) });
  expect(up.fake.requests.map((r) => [r.platform, r.provider, r.method, r.path, r.fullPath])).toEqual([
    ['google-ai-mode', 'serpapi', 'GET', '/search.json', '/serpapi/search.json'],
    ['claude', 'anthropic', 'POST', '/messages', '/anthropic/v1/messages'],
  ]);
  expect(up.fake.requests[0]!.headers['x-trace']).toBe('abc');
  expect(up.fake.requests[0]!.query).toEqual({ engine: 'google_ai_mode', q: 'x' });
  expect(up.fake.requests[1]!.body).toEqual({ a: 1 });
});

test("'*' behaviour applies to platforms without their own; reset forgets it", async () => {
  up.fake.setBehavior('*', { status: 503 });
  up.fake.setBehavior('gemini', { status: 418 });
  expect((await fetch(`${up.fake.url}${PREFIXES.perplexity}/chat/completions`, { method: 'POST', body: '{}' })).status).toBe(503);
  expect((await fetch(`${up.fake.url}${PREFIXES.gemini}/models/m:generateContent`, { method: 'POST', body: '{}' })).status).toBe(418);
  up.fake.reset();
  expect((await fetch(`${up.fake.url}${PREFIXES.perplexity}/chat/completions`, { method: 'POST', body: '{}' })).status).toBe(200);
});

test('in-flight count and high-water mark, total and per platform', async () => {
  up.fake.setBehavior('*', { latencyMs: 30 });
  const hit = (prefix: string, path: string) => fetch(`${up.fake.url}${prefix}${path}`, { method: 'POST', body: '{}' });
  const calls = [hit(PREFIXES.openai, '/responses'), hit(PREFIXES.openai, '/responses'), hit(PREFIXES.xai, '/responses')];
  while (up.fake.inFlight() < 3) await Bun.sleep(1);
  expect(up.fake.inFlight('chatgpt')).toBe(2);
  await Promise.all(calls);
  expect([up.fake.inFlight(), up.fake.highWater(), up.fake.highWater('chatgpt'), up.fake.highWater('grok')]).toEqual([0, 3, 2, 1]);
});

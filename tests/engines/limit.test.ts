/** Per-account bounds: concurrency and requests per minute, with abort while waiting. */
import { describe, expect, test } from 'bun:test';
import { createLimiter } from '../../src/engines';
import { rejection, useFakeUpstream } from './harness';

const up = useFakeUpstream();

describe('limits per upstream account', () => {
  test('<P>_CONCURRENCY bounds the calls in flight at the upstream', async () => {
    up.fake.setBehavior('perplexity', { latencyMs: 40 });
    const engine = up.registry({ env: { PERPLEXITY_CONCURRENCY: '2', PERPLEXITY_RPM: '0' } }).engine('perplexity');
    await Promise.all(Array.from({ length: 6 }, () => engine.ask({ prompt: 'x' })));
    expect(up.fake.requestsFor('perplexity')).toHaveLength(6);
    expect(up.fake.highWater('perplexity')).toBe(2);
  });

  test('the two Google surfaces share one SerpApi bound', async () => {
    up.fake.setBehavior('*', { latencyMs: 40 });
    const registry = up.registry({ env: { SERPAPI_CONCURRENCY: '1', SERPAPI_RPM: '0' } });
    await Promise.all([registry.engine('google-ai-mode').ask({ prompt: 'a' }), registry.engine('google-ai-overview').ask({ prompt: 'b' })]);
    expect(up.fake.highWater()).toBe(1);
  });

  test('<P>_RPM holds further calls until the minute frees a slot; an abort releases the waiter', async () => {
    const engine = up.registry({ env: { GEMINI_RPM: '2' } }).engine('gemini');
    await engine.ask({ prompt: '1' });
    await engine.ask({ prompt: '2' });
    const controller = new AbortController();
    const third = engine.ask({ prompt: '3', signal: controller.signal });
    await Bun.sleep(30);
    expect(up.fake.requestsFor('gemini')).toHaveLength(2);
    controller.abort();
    expect((await rejection(third)).kind).toBe('aborted');
    expect(up.fake.requestsFor('gemini')).toHaveLength(2);
  });

  test('a failed call frees its slot', async () => {
    let calls = 0;
    up.fake.setBehavior('claude', { respond: () => new Response('{}', { status: calls++ === 0 ? 500 : 401 }) });
    const engine = up.registry({ env: { ANTHROPIC_CONCURRENCY: '1' } }).engine('claude');
    expect((await rejection(engine.ask({ prompt: 'a' }))).kind).toBe('transient');
    expect((await rejection(engine.ask({ prompt: 'b' }))).kind).toBe('auth');
  });

  test('releasing twice frees one slot', async () => {
    const limiter = createLimiter({ concurrency: 1, rpm: 0 });
    const release = await limiter.acquire('chatgpt');
    const waiting = limiter.acquire('chatgpt');
    expect([limiter.active, limiter.waiting]).toEqual([1, 1]);
    release();
    release(); // a second release must not free a second slot
    await waiting;
    expect([limiter.active, limiter.waiting]).toEqual([1, 0]);
  });

  test('a call held by the rate bound starts once the oldest start leaves the 60 s window', async () => {
    let now = 0;
    const limiter = createLimiter({ concurrency: 10, rpm: 1, now: () => now });
    (await limiter.acquire('grok'))();
    now = 59_990;
    const second = limiter.acquire('grok');
    expect([limiter.active, limiter.waiting]).toEqual([0, 1]);
    now = 60_000;
    (await second)();
    expect([limiter.active, limiter.waiting]).toEqual([0, 0]);
  });

  test('a slot is handed over only while nobody waits, and keeps its call counted', async () => {
    const limiter = createLimiter({ concurrency: 1, rpm: 0 });
    await limiter.acquire('chatgpt');
    expect(limiter.handOver()).toBeFunction();
    expect(limiter.active).toBe(1); // the slot stays taken: the next call is its holder's
    const controller = new AbortController();
    const waiting = limiter.acquire('chatgpt', controller.signal).catch(() => 'aborted');
    expect(limiter.handOver()).toBeUndefined(); // a waiter comes first
    controller.abort();
    expect(await waiting).toBe('aborted');
    expect(limiter.handOver()).toBeFunction();
  });

  test('under a rate bound a handed-over start counts from the hand-over until it is made, then from when it was made', async () => {
    let now = 0;
    const limiter = createLimiter({ concurrency: 10, rpm: 1, now: () => now });
    await limiter.acquire('grok'); // a start at 0 s
    expect(limiter.handOver()).toBeUndefined(); // the window is full
    now = 60_001;
    const made = limiter.handOver()!; // the start at 0 s has left the window
    expect(made).toBeFunction();
    expect(limiter.handOver()).toBeUndefined(); // the handed-over start counts before it is made
    const controller = new AbortController();
    const third = limiter.acquire('grok', controller.signal).catch(() => 'aborted');
    await Bun.sleep(5);
    expect(limiter.waiting).toBe(1);
    controller.abort();
    expect(await third).toBe('aborted');
    now = 100_000;
    made(); // made at 100 s
    made(); // counted once
    now = 120_002; // counted from the hand-over (60 s) it would have left the window
    expect(limiter.handOver()).toBeUndefined();
    now = 160_001;
    expect(limiter.handOver()).toBeFunction();
  });
});

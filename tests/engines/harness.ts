import { afterAll, afterEach, beforeAll } from 'bun:test';
import { createEngineRegistry, loadEngineConfig, type EngineRegistry, type PlatformId } from '../../src/engines';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';

/** One fake upstream per test file, reset between tests. */
export function useFakeUpstream() {
  let fake: FakeUpstream;
  beforeAll(async () => {
    fake = await startFakeUpstream();
  });
  afterEach(() => fake.reset());
  afterAll(() => fake.stop());
  return {
    get fake() {
      return fake;
    },
    registry(opts: { googleSerp?: 'serpapi' | 'dataforseo'; env?: Record<string, string> } = {}): EngineRegistry {
      return createEngineRegistry(loadEngineConfig({ ...fake.env({ googleSerp: opts.googleSerp }), ...opts.env }));
    },
    ask(platform: PlatformId, request: { prompt?: string; model?: string; region?: string; language?: string; signal?: AbortSignal } = {}, opts: { googleSerp?: 'serpapi' | 'dataforseo'; env?: Record<string, string> } = {}) {
      return this.registry(opts).engine(platform).ask({ prompt: 'test prompt', ...request });
    },
  };
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function rejection(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail, it succeeded');
}

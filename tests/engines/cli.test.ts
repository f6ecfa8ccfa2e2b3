/** Acceptance 4: `answerwatch ask` prints the Answer JSON; with no key configured it exits 2 naming the variable. */
import { describe, expect, test } from 'bun:test';
import { runAskCommand } from '../../src/engines/cli';
import { useFakeUpstream } from './harness';

const up = useFakeUpstream();

function capture() {
  const out = { stdout: '', stderr: '' };
  return { out, io: { stdout: (s: string) => void (out.stdout += s), stderr: (s: string) => void (out.stderr += s) } };
}

describe('answerwatch ask', () => {
  test('prints the Answer as JSON and exits 0, passing model, region and language upstream', async () => {
    const { out, io } = capture();
    const code = await runAskCommand(['--platform', 'chatgpt', '--model', 'gpt-4.1', '--region', 'US', '--language', 'en', 'best', 'crm', 'tools'], up.fake.env(), io);
    expect(code).toBe(0);
    expect(out.stderr).toBe('');
    const answer = JSON.parse(out.stdout);
    expect(answer.platform).toBe('chatgpt');
    expect(answer.model).toBe('gpt-5-mini-2025-08-07');
    expect(answer.citations).toHaveLength(10);
    expect(answer.searchQueries).toEqual(['tech news today December 5 2025']);
    const body = up.fake.requestsFor('chatgpt')[0]!.body as any;
    expect(body.model).toBe('gpt-4.1');
    expect(body.input.at(-1)).toEqual({ role: 'user', content: 'best crm tools' });
    expect(body.tools[0].user_location.country).toBe('US');
  });

  test('prints the no-surface result for a SERP page without an AI answer, exit 0', async () => {
    up.fake.setBehavior('google-ai-overview', { fixture: 'serpapi-google-no-ai-overview.json' });
    const { out, io } = capture();
    expect(await runAskCommand(['--platform', 'google-ai-overview', 'acme widgets login'], up.fake.env(), io)).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ noSurface: true, platform: 'google-ai-overview' });
  });

  test('no key configured: one line naming the missing variable, exit 2, nothing sent', async () => {
    const { out, io } = capture();
    const env = { ...up.fake.env(), PERPLEXITY_API_KEY: undefined };
    expect(await runAskCommand(['--platform', 'perplexity', 'hello'], env, io)).toBe(2);
    expect(out.stderr).toBe('perplexity is not configured: set PERPLEXITY_API_KEY\n');
    expect(out.stdout).toBe('');
    expect(up.fake.requests).toHaveLength(0);
  });

  test('an invalid variable: exit 2 naming it', async () => {
    const { out, io } = capture();
    expect(await runAskCommand(['--platform', 'claude', 'hi'], { ...up.fake.env(), ANTHROPIC_TIMEOUT_MS: 'x' }, io)).toBe(2);
    expect(out.stderr).toContain('ANTHROPIC_TIMEOUT_MS');
  });

  test('an upstream failure: the typed error as JSON on stderr, exit 1', async () => {
    up.fake.setBehavior('claude', { status: 401 });
    const { out, io } = capture();
    expect(await runAskCommand(['--platform', 'claude', 'hi'], up.fake.env(), io)).toBe(1);
    expect(JSON.parse(out.stderr).error).toMatchObject({ kind: 'auth', permanent: true, platform: 'claude', variable: 'ANTHROPIC_API_KEY' });
  });

  test('usage errors exit 2: no platform, unknown platform, no prompt, unknown flag', async () => {
    for (const args of [['hello'], ['--platform', 'bard', 'hello'], ['--platform', 'chatgpt'], ['--platform', 'chatgpt', '--temperature', '1', 'x']]) {
      const { out, io } = capture();
      expect(await runAskCommand(args, up.fake.env(), io)).toBe(2);
      expect(out.stderr).toContain('usage: answerwatch ask');
    }
  });
});

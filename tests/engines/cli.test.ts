/** Acceptance 4: `answerwatch ask` prints the Answer JSON; with no key configured it exits 2 naming the variable. */
import { describe, expect, test } from 'bun:test';
import { runAskCommand, runDoctorCommand, runModelsCommand } from '../../src/engines/cli';
import { FAKE_KEYS } from '../fakes/upstream';
import { useFakeUpstream } from './harness';

/** Retirement dates are compared with a fixed day in these tests. */
const NOW = new Date('2026-11-23T12:00:00Z');

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

describe('answerwatch ask with a retired model', () => {
  test('ask --model grok-3: one line naming grok-4.3, exit 2, nothing sent', async () => {
    const { out, io } = capture();
    expect(await runAskCommand(['--platform', 'grok', '--model', 'grok-3', 'hello'], up.fake.env(), io)).toBe(2);
    expect(out.stderr).toStartWith('grok: grok-3 was retired by xAI on 2026-05-15; use grok-4.3 instead');
    expect(out.stdout).toBe('');
    expect(up.fake.requests).toHaveLength(0);
  });

  test('XAI_MODEL=grok-3: the configuration error names the variable and grok-4.3, exit 2', async () => {
    const { out, io } = capture();
    expect(await runAskCommand(['--platform', 'grok', 'hello'], { ...up.fake.env(), XAI_MODEL: 'grok-3' }, io)).toBe(2);
    expect(out.stderr).toContain('XAI_MODEL');
    expect(out.stderr).toContain('set XAI_MODEL=grok-4.3');
  });

  test('the upstream does not know the model: the error JSON names it and the replacement, exit 1', async () => {
    up.fake.setBehavior('claude', { modelNotFound: true });
    const { out, io } = capture();
    expect(await runAskCommand(['--platform', 'claude', '--model', 'claude-sonnet-4-5', 'hi'], up.fake.env(), io)).toBe(1);
    expect(JSON.parse(out.stderr).error).toMatchObject({ kind: 'rejected', permanent: true, code: 'model_not_found', model: 'claude-sonnet-4-5', replacement: 'claude-sonnet-5-5' });
  });
});

describe('answerwatch models', () => {
  test('one row per model: platform, model, default or configured, status with its date, replacement, source', async () => {
    const { out, io } = capture();
    expect(await runModelsCommand([], { XAI_MODEL: 'grok-4.20-non-reasoning' }, io, { now: NOW })).toBe(0);
    const lines = out.stdout.split('\n');
    expect(lines[0]).toMatch(/^PLATFORM\s+MODEL\s+DEFAULT\s+STATUS\s+REPLACEMENT\s+SOURCE$/);
    const row = (model: string) => lines.find((l) => l.split(/\s+/)[1] === model)!.split(/\s{2,}/);
    expect(row('grok-4.3')).toEqual(['grok', 'grok-4.3', 'default', 'active', '-', 'https://docs.x.ai/developers/migration/may-15-retirement (checked 2026-11-23)']);
    expect(row('grok-4.20-non-reasoning').slice(0, 4)).toEqual(['grok', 'grok-4.20-non-reasoning', 'configured', 'active']);
    expect(row('grok-3')).toEqual(['grok', 'grok-3', '-', 'retired 2026-05-15', 'grok-4.3', 'https://docs.x.ai/developers/migration/may-15-retirement (checked 2026-11-23)']);
    expect(row('gpt-5-mini').slice(0, 5)).toEqual(['chatgpt', 'gpt-5-mini', '-', 'deprecated, retires 2026-12-11', 'gpt-6.1-terra']);
    expect(row('sonar-reasoning').slice(3, 5)).toEqual(['retired', 'sonar-reasoning-pro']);
    for (const p of ['chatgpt', 'perplexity', 'gemini', 'claude', 'grok']) expect(lines.some((l) => l.startsWith(p) && / default /.test(l))).toBe(true);
    expect(out.stdout).toContain('catalogue: shipped; dates compared with 2026-11-23');
  });

  test('--json and --platform', async () => {
    const { out, io } = capture();
    expect(await runModelsCommand(['--json', '--platform', 'claude'], {}, io, { now: NOW })).toBe(0);
    const json = JSON.parse(out.stdout);
    expect(new Set(json.models.map((m: any) => m.platform))).toEqual(new Set(['claude']));
    expect(json.models.find((m: any) => m.model === 'claude-opus-4-1')).toMatchObject({
      status: 'retired',
      retiresOn: '2026-08-05',
      replacement: 'claude-opus-5-5',
      aliases: ['claude-opus-4-1-20250805'],
      source: { url: expect.stringMatching(/^https:\/\//), checked: '2026-11-23' },
    });
  });

  test('a bad MODELS_FILE: exit 2 naming the file', async () => {
    const { out, io } = capture();
    expect(await runModelsCommand([], { MODELS_FILE: '/nonexistent/models.json' }, io, { now: NOW })).toBe(2);
    expect(out.stderr).toBe('invalid MODELS_FILE: /nonexistent/models.json: cannot be read (ENOENT)\n');
  });
});

describe('answerwatch doctor', () => {
  const rowsOf = (stdout: string) => stdout.split('\n').map((l) => l.split(/\s{2,}/));

  test('every configured platform OK against the providers’ own endpoints: exit 0', async () => {
    const { out, io } = capture();
    const code = await runDoctorCommand([], up.fake.env({ perplexityApi: 'agent' }), io, { now: NOW });
    expect(out.stderr).toBe('');
    expect(code).toBe(0);
    const rows = rowsOf(out.stdout);
    expect(rows).toContainEqual(['ok', 'chatgpt', 'key OK (GET /openai/v1/models)']);
    expect(rows).toContainEqual(['ok', 'chatgpt', 'model gpt-6.1-terra listed (GET /openai/v1/models)']);
    expect(rows).toContainEqual(['ok', 'claude', 'model claude-sonnet-5-5 listed (GET /anthropic/v1/models/claude-sonnet-5-5)']);
    expect(rows).toContainEqual(['ok', 'gemini', 'model gemini-3.8-flash listed (GET /gemini/v1beta/models/gemini-3.8-flash)']);
    expect(rows).toContainEqual(['ok', 'grok', 'model grok-4.3 listed (GET /xai/v1/models)']);
    expect(rows).toContainEqual(['ok', 'perplexity', 'key OK (GET /v1/responses/<unknown id>: HTTP 404 for the id)']);
    expect(rows).toContainEqual(['ok', 'perplexity', 'model sonar (perplexity/sonar) listed (GET /perplexity/v1/models)']);
    expect(rows).toContainEqual(['ok', 'openai-compatible', 'model llama3.1:8b listed (GET /compat/v1/models)']);
    expect(rows).toContainEqual(['ok', 'google-ai-overview, google-ai-mode', 'key OK (5958 searches left) (GET /serpapi/account.json?api_key=***)']);
    expect(rows).toContainEqual(['ok', 'copilot', 'key OK (8800 credits left) (GET /searchapi/api/v1/me)']);
    expect(out.stdout).toContain('every configured platform is OK');
    expect(out.stdout).not.toContain(FAKE_KEYS.serpapi);
    // Only free endpoints: no generation call was made.
    expect(up.fake.requests.every((r) => r.method === 'GET')).toBe(true);
    const auth = up.fake.requestsFor('claude')[0]!;
    expect([auth.headers['x-api-key'], auth.headers['anthropic-version']]).toEqual([FAKE_KEYS.anthropic, '2023-06-01']);
  });

  test('one key refused and one model missing: those lines, the replacement named, exit 1', async () => {
    up.fake.setBehavior('claude', { status: 401 });
    up.fake.setModels('xai', ['grok-4.20-non-reasoning']);
    const { out, io } = capture();
    expect(await runDoctorCommand([], { ...up.fake.env(), OPENAI_MODEL: 'gpt-5-mini' }, io, { now: NOW })).toBe(1);
    const rows = rowsOf(out.stdout);
    expect(rows).toContainEqual(['FAIL', 'claude', 'key refused (HTTP 401): check ANTHROPIC_API_KEY']);
    expect(rows).toContainEqual(['FAIL', 'grok', 'model grok-4.3 missing (GET /xai/v1/models): the account lists grok-4.20-non-reasoning: set XAI_MODEL=grok-4.20-non-reasoning (see `answerwatch models`)']);
    // A deprecated model is a warning, with its replacement.
    expect(rows).toContainEqual(['WARN', 'chatgpt', expect.stringContaining('model gpt-5-mini is deprecated: gpt-5-mini is deprecated by OpenAI and stops working on 2026-12-11; use gpt-6.1-terra')]);
    expect(rows).toContainEqual(['WARN', 'perplexity', "model sonar: cannot check (Perplexity's models list covers the Agent API; PERPLEXITY_API=sonar)"]);
    expect(out.stdout).toContain('needs attention: claude; grok');
  });

  test('a retired configured model: FAIL naming the replacement (the key is still checked); not configured platforms listed', async () => {
    const env = { XAI_API_KEY: FAKE_KEYS.xai, XAI_BASE_URL: up.fake.env().XAI_BASE_URL!, XAI_MODEL: 'grok-3', GOOGLE_SERP_PROVIDER: 'dataforseo', DATAFORSEO_LOGIN: FAKE_KEYS.dataforseoLogin, DATAFORSEO_PASSWORD: FAKE_KEYS.dataforseoPassword, DATAFORSEO_BASE_URL: up.fake.env().DATAFORSEO_BASE_URL! };
    const { out, io } = capture();
    expect(await runDoctorCommand([], env, io, { now: NOW })).toBe(1);
    const rows = rowsOf(out.stdout);
    expect(rows).toContainEqual(['ok', 'grok', 'key OK (GET /xai/v1/models)']);
    expect(rows).toContainEqual(['FAIL', 'grok', expect.stringContaining('model grok-3 (XAI_MODEL) is retired: grok-3 was retired by xAI on 2026-05-15; use grok-4.3')]);
    expect(rows).toContainEqual(['ok', 'google-ai-overview, google-ai-mode', 'key OK (balance 42.5 USD) (GET /dataforseo/v3/appendix/user_data)']);
    expect(rows).toContainEqual(['--', 'chatgpt', 'not configured (set OPENAI_API_KEY)']);
  });

  test('nothing configured: exit 1; an unreadable configuration: exit 2', async () => {
    const a = capture();
    expect(await runDoctorCommand([], {}, a.io, { now: NOW })).toBe(1);
    expect(a.out.stdout).toContain('no platform is configured');
    const b = capture();
    expect(await runDoctorCommand([], { OPENAI_TIMEOUT_MS: 'soon' }, b.io, { now: NOW })).toBe(2);
    expect(b.out.stderr).toContain('OPENAI_TIMEOUT_MS');
  });

  test('src/main.ts doctor and models: the commands are registered (exit codes from a real process)', async () => {
    const run = async (args: string[], env: Record<string, string>) => {
      const proc = Bun.spawn([process.execPath, 'src/main.ts', ...args], { cwd: `${import.meta.dir}/../..`, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, stdout: 'pipe', stderr: 'pipe' });
      const [code, stdout] = await Promise.all([proc.exited, new Response(proc.stdout).text()]);
      return { code, stdout };
    };
    const ok = await run(['doctor'], up.fake.env({ perplexityApi: 'agent' }));
    expect(ok.stdout).toContain('every configured platform is OK');
    expect(ok.code).toBe(0);
    up.fake.setBehavior('gemini', { status: 403 });
    const failing = await run(['doctor', '--json'], up.fake.env());
    expect(failing.code).toBe(1);
    expect(JSON.parse(failing.stdout).checks).toContainEqual({ level: 'fail', platform: 'gemini', text: 'key refused (HTTP 403): check GEMINI_API_KEY' });
    const models = await run(['models', '--platform', 'grok'], {});
    expect(models.code).toBe(0);
    expect(models.stdout).toMatch(/^grok\s+grok-3\s+-\s+retired 2026-05-15\s+grok-4\.3\s/m);
  });
});

import { parseArgs } from 'node:util';
import { loadEngineConfig } from './config';
import { isEngineError } from './errors';
import type { FetchLike } from './http';
import { createEngineRegistry } from './registry';
import { isPlatformId, PLATFORM_IDS } from './types';

export interface CommandOutput {
  stdout(s: string): void;
  stderr(s: string): void;
}

const consoleOutput: CommandOutput = {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
};

const USAGE = `usage: answerwatch ask --platform P [--model M] [--region US] [--language en] "prompt"
platforms: ${PLATFORM_IDS.join(', ')}
`;

/**
 * `answerwatch ask`: asks one platform one prompt and prints the Answer (or the no-surface result)
 * as JSON. Exit codes: 0 answered, 1 the upstream failed (error JSON on stderr), 2 usage or
 * configuration problem (one line naming what to fix).
 */
export async function runAskCommand(
  args: string[],
  env: Record<string, string | undefined>,
  out: CommandOutput = consoleOutput,
  options: { fetch?: FetchLike; signal?: AbortSignal } = {},
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        platform: { type: 'string', short: 'p' },
        model: { type: 'string', short: 'm' },
        region: { type: 'string', short: 'r' },
        language: { type: 'string', short: 'l' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    out.stderr(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    out.stdout(USAGE);
    return 0;
  }
  const prompt = positionals.join(' ').trim();
  if (!values.platform || !isPlatformId(values.platform) || prompt === '') {
    out.stderr(values.platform && !isPlatformId(values.platform) ? `unknown platform "${values.platform}"\n${USAGE}` : USAGE);
    return 2;
  }

  try {
    const registry = createEngineRegistry(loadEngineConfig(env), { fetch: options.fetch });
    const missing = registry.missingVariable(values.platform);
    if (missing) {
      out.stderr(`${values.platform} is not configured: set ${missing}\n`);
      return 2;
    }
    const result = await registry.engine(values.platform).ask({
      prompt,
      model: values.model,
      region: values.region,
      language: values.language,
      signal: options.signal,
    });
    out.stdout(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (error) {
    if (isEngineError(error) && error.kind === 'config') {
      out.stderr(`${error.message}\n`);
      return 2;
    }
    out.stderr(`${JSON.stringify({ error: isEngineError(error) ? error.toJSON() : { message: String(error) } }, null, 2)}\n`);
    return 1;
  }
}

// The shipped reference lists (src/pixel/data, origin and license in its README), read once at
// import as plain data. Bundled into the binary by the imports themselves.
import assistantsYaml from "./data/ai-assistants.yml";
import robotsJson from "./data/ai-robots.json";

/** One entry of the AI-assistant list: a host, optionally with a path prefix (`x.com/i/grok`). */
export interface AssistantEntry {
  platform: string;
  host: string;
  pathPrefix: string | null;
}

export function assistantEntries(list: Record<string, string[]> = assistantsYaml as Record<string, string[]>): AssistantEntry[] {
  const entries: AssistantEntry[] = [];
  for (const [platform, hosts] of Object.entries(list)) {
    for (const raw of hosts ?? []) {
      const value = String(raw).trim().toLowerCase();
      const slash = value.indexOf("/");
      entries.push({
        platform,
        host: slash < 0 ? value : value.slice(0, slash),
        pathPrefix: slash < 0 ? null : value.slice(slash),
      });
    }
  }
  return entries;
}

/** User-agent product tokens of AI crawlers and agents. */
export function aiRobotTokens(list: Record<string, unknown> = robotsJson as Record<string, unknown>): string[] {
  return Object.keys(list);
}

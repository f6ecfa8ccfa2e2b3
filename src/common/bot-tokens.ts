// Tokens of the AI-robots list (src/pixel/data/ai-robots.json) that are also everyday words or
// desktop apps' names: a user agent names such a bot only where it spells the token exactly and is
// no Electron app's (VS Code's "Code/1.95 … Electron/32" is a person's editor, not GitHub's coding
// agent; Sogou's "web spider" is no AI "Spider"). One list for the crawler logs and the pixel.
export const AMBIGUOUS_BOT_TOKENS: ReadonlySet<string> = new Set(["Code", "Spider", "Operator", "Trae", "LCC", "Cursor", "Devin", "YaK"]);

/** Whether a user agent is an Electron app's (the ambiguous tokens are never read in one). */
export const isElectronAgent = (userAgent: string) => /electron\//i.test(userAgent);

// prompts.is_branded on Postgres. SQLite keeps it inside the write, with triggers calling the
// brand matcher as a SQL function (branded.sqlite.ts); Postgres cannot call TypeScript, so here:
// - the triggers only say which brand changed: NOTIFY aw_branded, <brand id>, on every write path
//   (a prompt inserted or its text, brand or flag written; a brand renamed or its aliases changed;
//   a domain added, moved or removed; REST, psql and cascades included);
// - `recheckBranded` (TypeScript, the same matcher: branded.ts) recomputes a brand's prompts. The
//   listener (`listenBranded`, one per instance) runs it for each brand notified, and a writer that
//   wants the flag right at once calls it in its own transaction.
// The gap, honestly: a write that nobody listens for or rechecks leaves the flag stale until the
// next recheck of its brand — between the commit and the listener's recheck (milliseconds) a read
// can see the old flag, and while no instance is running nothing rechecks (the first instance to
// listen again rechecks everything on a reconnect, not on a clean start).
import type { SQL } from "bun";
import type { PgSchemaPart } from "../db/pg/open";
import { isUuid } from "../db/pg/values";
import { createBrandNamer } from "./branded";

export const BRANDED_CHANNEL = "aw_branded";
/** Set (transaction-local) while a recheck writes the flags: its own writes need no notification. */
const RECHECKING = "aw.branded_recheck";

/**
 * Recomputes is_branded of the brands' prompts (null: every brand's), writing only the flags that
 * changed and only where the prompt's text is still the one judged. The number of prompts changed.
 * `inTransaction`: `sql` is the caller's transaction (a writer making its prompts right at once).
 */
export async function recheckBranded(sql: SQL, brandIds: string[] | null = null, options: { inTransaction?: boolean } = {}): Promise<number> {
  if (brandIds === null) {
    let changed = 0;
    const all = (await sql`SELECT id FROM brands ORDER BY id`).map((r: { id: string }) => r.id);
    // A hundred brands at a time: a large database is not read into memory at once.
    for (let i = 0; i < all.length; i += 100) changed += await recheckBranded(sql, all.slice(i, i + 100), options);
    return changed;
  }
  const ids = [...new Set(brandIds.filter(isUuid))];
  if (!ids.length) return 0;
  const rows = await sql`
    WITH b AS (
      SELECT id, name, aliases::text AS aliases, coalesce((SELECT json_agg(d.domain) FROM brand_domains d WHERE d.brand_id = brands.id), '[]'::json)::text AS domains
        FROM brands WHERE id = ANY(${sql.array(ids, "uuid")}))
    SELECT p.id, p.text, p.is_branded, b.name, b.aliases, b.domains FROM prompts p JOIN b ON b.id = p.brand_id`;
  const names = createBrandNamer();
  const changes = rows
    .map((r: { id: string; text: string; is_branded: boolean; name: string; aliases: string; domains: string }) => ({ id: r.id, text: r.text, was: r.is_branded, b: names(r.text, r.name, r.aliases, r.domains) === 1 }))
    .filter((c: { was: boolean; b: boolean }) => c.was !== c.b)
    .map(({ id, text, b }: { id: string; text: string; b: boolean }) => ({ id, text, b }));
  if (!changes.length) return 0;
  const write = async (tx: SQL) => {
    await tx`SELECT set_config(${RECHECKING}, 'on', true)`;
    const updated = await tx`
      UPDATE prompts p SET is_branded = x.b FROM jsonb_to_recordset(${changes}::jsonb) AS x(id uuid, text text, b boolean)
       WHERE p.id = x.id AND p.text = x.text AND p.is_branded IS DISTINCT FROM x.b`;
    // Later writes of the caller's transaction are the caller's: they notify again.
    await tx`SELECT set_config(${RECHECKING}, 'off', true)`;
    return updated.count as number;
  };
  return options.inTransaction ? write(sql) : sql.begin(write);
}

/**
 * Listens for brands to recheck and rechecks them, one recheck at a time (notifications arriving
 * meanwhile are gathered into the next). After a reconnect, every brand: notifications sent while
 * the connection was down are lost.
 */
export async function listenBranded(sql: SQL, onError: (error: unknown) => void = () => {}): Promise<{ stop(): Promise<void> }> {
  const pending = new Set<string>();
  let everything = false;
  let running: Promise<void> | null = null;
  let listened = 0;
  const drain = async () => {
    while (pending.size || everything) {
      const ids = everything ? null : [...pending];
      everything = false;
      pending.clear();
      await recheckBranded(sql, ids).catch(onError);
    }
    running = null;
  };
  const kick = () => void (running ??= drain());
  const subscription = await sql.listen(
    BRANDED_CHANNEL,
    (brandId) => (pending.add(brandId), kick()),
    () => {
      if (listened++ > 0) (everything = true), kick();
    },
  );
  return {
    async stop() {
      await subscription.unlisten();
      await running;
    },
  };
}

const TRIGGERS: { name: string; on: string }[] = [
  { name: "prompts_branded_notify", on: "AFTER INSERT OR UPDATE OF text, brand_id, is_branded ON prompts FOR EACH ROW" },
  { name: "brands_branded_notify", on: "AFTER UPDATE OF name, aliases ON brands FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.aliases IS DISTINCT FROM NEW.aliases)" },
  { name: "brand_domains_branded_notify", on: "AFTER INSERT OR DELETE OR UPDATE OF domain, brand_id ON brand_domains FOR EACH ROW" },
];
const FUNCTION = "aw_branded_notify";
// The triggers' definitions are part of the function's source: a changed definition is a changed function, and is made again.
const SOURCE = `
${TRIGGERS.map((t) => `-- trigger ${t.name}: ${t.on}`).join("\n")}
BEGIN
  IF current_setting('${RECHECKING}', true) = 'on' THEN
    RETURN NULL;
  END IF;
  IF TG_TABLE_NAME = 'brands' THEN
    PERFORM pg_notify('${BRANDED_CHANNEL}', NEW.id::text);
  ELSE
    IF TG_OP <> 'INSERT' THEN
      PERFORM pg_notify('${BRANDED_CHANNEL}', OLD.brand_id::text);
    END IF;
    IF TG_OP <> 'DELETE' THEN
      PERFORM pg_notify('${BRANDED_CHANNEL}', NEW.brand_id::text);
    END IF;
  END IF;
  RETURN NULL;
END
`;

/** Creates or replaces the notifying triggers; when they were missing or different, rechecks every prompt (nothing told of the writes before). True when it had to. */
export async function ensureBrandedPg(tx: SQL): Promise<boolean> {
  const [fn] = await tx`SELECT prosrc FROM pg_proc WHERE proname = ${FUNCTION} AND pronamespace = 'public'::regnamespace`;
  const present = new Set<string>((await tx`SELECT tgname FROM pg_trigger WHERE NOT tgisinternal AND tgname = ANY(${tx.array(TRIGGERS.map((t) => t.name), "text")})`).map((r: { tgname: string }) => r.tgname));
  if (fn?.prosrc === SOURCE && TRIGGERS.every((t) => present.has(t.name))) return false;
  await tx.unsafe(`CREATE OR REPLACE FUNCTION ${FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS $fn$${SOURCE}$fn$`);
  for (const t of TRIGGERS) await tx.unsafe(`CREATE OR REPLACE TRIGGER ${t.name} ${t.on} EXECUTE FUNCTION ${FUNCTION}()`);
  await recheckBranded(tx, null, { inTransaction: true });
  return true;
}

/** prompts.is_branded's notifying triggers, on Postgres (the recheck itself is TypeScript: see above). */
export const brandedPgSchema: PgSchemaPart = { name: "branded", ensure: ensureBrandedPg };

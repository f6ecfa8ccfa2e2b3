// A new brand in five steps, written through supabase-js as an integrator would, then a first run
// through /api/tracking with live progress.
import { useEffect, useState } from "preact/hooks";
import { Field, unwrap } from "../components/ui";
import { navigate } from "../lib/router";
import { errorMessage, type Connection } from "../lib/session";

const STEPS = ["Brand", "Competitors", "Prompts", "Platforms", "Run"];
const FREQUENCIES = ["daily", "weekly", "hourly", "monthly", "manual"];

interface Draft {
  name: string;
  website: string;
  domains: string;
  region: string;
  language: string;
  competitors: string;
  topic: string;
  prompts: string;
  platforms: string[];
  frequency: string;
  samples: number;
}

const lines = (text: string) => text.split("\n").map((l) => l.trim()).filter(Boolean);
const slugOf = (name: string) => `${name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || "brand"}-${Math.random().toString(36).slice(2, 6)}`;
const hostOf = (url: string) => url.trim().replace(/^https?:\/\//i, "").replace(/\/.*$/, "").toLowerCase();

/** "Globex, globex.com, Globex Corp | GX" → a competitor with aliases. */
function parseCompetitor(line: string) {
  const [name, domain, aliases] = line.split(",").map((s) => s.trim());
  return { name: name!, domain: domain ? hostOf(domain) : null, aliases: aliases ? aliases.split("|").map((a) => a.trim()).filter(Boolean) : [] };
}

export function Onboarding({ conn }: { conn: Connection }) {
  const configured = conn.config.platforms.filter((p) => p.configured).map((p) => p.id);
  const [step, setStep] = useState(0);
  const [draft, setDraft] = useState<Draft>({ name: "", website: "", domains: "", region: "US", language: "en", competitors: "", topic: "", prompts: "", platforms: configured, frequency: "daily", samples: 1 });
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<{ brandId: string; jobId?: string } | null>(null);
  // An edit answers the message it was made for: the message goes with it.
  const set = (patch: Partial<Draft>) => {
    setError(null);
    setDraft((d) => ({ ...d, ...patch }));
  };
  const input = (key: keyof Draft) => (e: Event) => set({ [key]: (e.target as HTMLInputElement).value } as Partial<Draft>);

  function check(): string | null {
    if (step === 0 && (!draft.name.trim() || !hostOf(draft.website))) return "A name and the website's address are needed.";
    if (step === 2 && !lines(draft.prompts).length) return "Add at least one prompt: a question your customers ask an AI assistant.";
    if (step === 3 && !draft.platforms.length) return "Choose at least one platform (it is tracked once the server has its key).";
    return null;
  }

  async function create() {
    setBusy(true);
    setError(null);
    try {
      // The first organization (by when one joined) where one may add brands: viewers may not.
      const me = (await conn.sb.auth.getSession()).data.session?.user.id ?? "";
      const orgs = unwrap(await conn.sb.from("organization_members").select("organization_id").eq("user_id", me).in("role", ["owner", "admin", "member"]).order("created_at").order("id").limit(1)) as { organization_id: string }[];
      if (!orgs.length) throw new Error("You may not add brands in any organization: ask an owner or admin to make you a member");
      const brand = unwrap(
        await conn.sb.from("brands").insert({ organization_id: orgs[0]!.organization_id, name: draft.name.trim(), slug: slugOf(draft.name), region: draft.region || null, language: draft.language || null }).select("id").single(),
      ) as { id: string };
      try {
        await fillBrand(brand.id);
      } catch (e) {
        // All or nothing: a refused domain or competitor takes the brand back (its rows go with it),
        // so trying again after a fix does not leave half-made brands behind.
        const undone = await conn.sb.from("brands").delete().eq("id", brand.id);
        if (undone.error) throw new Error(`${errorMessage(e)} — and the brand "${draft.name.trim()}" it began could not be removed (${undone.error.message}): delete it in its settings`);
        throw e;
      }
      setCreated({ brandId: brand.id });
      setStep(4);
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  }

  /** The brand's domains, competitors, topic, prompts and platforms, as typed. */
  async function fillBrand(brandId: string) {
    const domains = [hostOf(draft.website), ...lines(draft.domains).map(hostOf)].filter((d, i, all) => d && all.indexOf(d) === i);
    unwrap(await conn.sb.from("brand_domains").insert(domains.map((domain, i) => ({ brand_id: brandId, domain, is_primary: i === 0 }))));
    const competitors = lines(draft.competitors).map(parseCompetitor);
    if (competitors.length) unwrap(await conn.sb.from("competitors").insert(competitors.map((c) => ({ brand_id: brandId, ...c }))));
    const topic = draft.topic.trim() ? (unwrap(await conn.sb.from("topics").insert({ brand_id: brandId, name: draft.topic.trim() }).select("id").single()) as { id: string }) : null;
    const set = unwrap(await conn.sb.from("prompt_sets").insert({ brand_id: brandId, name: "Prompts" }).select("id").single()) as { id: string };
    unwrap(await conn.sb.from("prompts").insert(lines(draft.prompts).map((text) => ({ prompt_set_id: set.id, brand_id: brandId, text, topic_id: topic?.id ?? null }))));
    unwrap(await conn.sb.from("brand_platforms").insert(draft.platforms.map((platform) => ({ brand_id: brandId, platform, check_frequency: draft.frequency, samples: draft.samples }))));
  }

  async function runNow() {
    if (!created) return;
    setError(null);
    try {
      const started = await conn.api<{ jobId: string }>("POST", "/api/tracking/start", { brandId: created.brandId });
      setCreated({ ...created, jobId: started.jobId });
    } catch (e) {
      setError(errorMessage(e));
    }
  }

  function next(event: Event) {
    event.preventDefault();
    const problem = check();
    if (problem) return setError(problem);
    setError(null);
    if (step === 3) return void create();
    setStep((s) => s + 1);
  }

  return (
    <section class="onboarding">
      <h1>Add a brand</h1>
      <ol class="steps" aria-label="Steps">
        {STEPS.map((s, i) => (
          <li key={s} aria-current={i === step ? "step" : undefined} class={i < step ? "done" : undefined}>
            {s}
          </li>
        ))}
      </ol>
      <form class="card" onSubmit={next}>
        {step === 0 && (
          <>
            <Field label="Brand name">
              <input name="name" value={draft.name} onInput={input("name")} required autoFocus />
            </Field>
            <Field label="Website" hint="Its domain is how answers citing you are recognised">
              <input name="website" value={draft.website} onInput={input("website")} placeholder="https://www.example.com" required />
            </Field>
            <Field label="More domains" hint="One per line (docs site, other country sites)">
              <textarea name="domains" rows={2} value={draft.domains} onInput={input("domains")} />
            </Field>
            <div class="row">
              <Field label="Region" hint="Country code the engines are asked from">
                <input name="region" value={draft.region} onInput={input("region")} maxLength={2} />
              </Field>
              <Field label="Language">
                <input name="language" value={draft.language} onInput={input("language")} maxLength={5} />
              </Field>
            </div>
          </>
        )}
        {step === 1 && (
          <Field label="Competitors" hint="One per line: name, domain, aliases separated by |  — e.g. Globex, globex.com, Globex Corp | GX">
            <textarea name="competitors" rows={6} value={draft.competitors} onInput={input("competitors")} />
          </Field>
        )}
        {step === 2 && (
          <>
            <Field label="Topic" hint="Optional: a theme these prompts share, to compare topics later">
              <input name="topic" value={draft.topic} onInput={input("topic")} />
            </Field>
            <Field label="Prompts" hint="One per line, typed or pasted: what your customers ask an assistant. Prompts naming your brand count as branded.">
              <textarea name="prompts" rows={8} value={draft.prompts} onInput={input("prompts")} />
            </Field>
          </>
        )}
        {step === 3 && (
          <>
            <fieldset>
              <legend>Platforms</legend>
              {conn.config.platforms.map((p) => (
                <label key={p.id} class="check">
                  <input
                    type="checkbox"
                    name="platform"
                    value={p.id}
                    checked={draft.platforms.includes(p.id)}
                    onChange={(e) => set({ platforms: (e.target as HTMLInputElement).checked ? [...draft.platforms, p.id] : draft.platforms.filter((x) => x !== p.id) })}
                  />
                  {p.id}
                  {!p.configured && <span class="muted"> — no key on the server yet: set <code>{p.missing}</code></span>}
                </label>
              ))}
            </fieldset>
            {!configured.length && (
              <p class="warning" role="status">
                No AI engine is configured on this server yet. The brand is saved anyway with the platforms you choose, and tracking starts on its schedule once a key exists: set
                the variable shown (in the server's environment or its <code>.env</code> file), restart the server, and check it with <code>answerwatch doctor</code>. The AI traffic
                pixel and crawler logs need no key and work now.
              </p>
            )}
            <div class="row">
              <Field label="Check frequency">
                <select name="frequency" value={draft.frequency} onChange={input("frequency")}>
                  {FREQUENCIES.map((f) => (
                    <option key={f}>{f}</option>
                  ))}
                </select>
              </Field>
              <Field label="Samples" hint="Answers per prompt and platform each run (1–10): more narrows the intervals and costs as many calls">
                <input name="samples" type="number" min={1} max={10} value={draft.samples} onInput={(e) => set({ samples: Number((e.target as HTMLInputElement).value) })} />
              </Field>
            </div>
          </>
        )}
        {step === 4 && created && <RunNow conn={conn} brandId={created.brandId} jobId={created.jobId} onStart={runNow} platforms={draft.platforms} />}
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        {step < 4 && (
          <div class="actions">
            {step > 0 && (
              <button type="button" onClick={() => setStep((s) => s - 1)}>
                Back
              </button>
            )}
            <button type="submit" class="primary" disabled={busy}>
              {step === 3 ? "Create the brand" : "Next"}
            </button>
          </div>
        )}
      </form>
    </section>
  );
}

function RunNow({ conn, brandId, jobId, onStart, platforms }: { conn: Connection; brandId: string; jobId?: string; onStart(): void; platforms: string[] }) {
  const waiting = conn.config.platforms.filter((p) => platforms.includes(p.id) && !p.configured);
  const ready = platforms.length > waiting.length;
  const [job, setJob] = useState<{ status: string; progress: { phase: string; completed: number; failed?: number; total: number }; failedReason: string | null } | null>(null);
  useEffect(() => {
    if (!jobId) return;
    let live = true;
    const poll = async () => {
      const j = await conn.api("GET", `/api/tracking/job/${jobId}`).catch(() => null);
      if (!live) return;
      if (j) setJob(j);
      if (!j || ["waiting", "active"].includes(j.status)) setTimeout(poll, 1000);
    };
    poll();
    return () => {
      live = false;
    };
  }, [jobId]);
  return (
    <div>
      <p>The brand is set up.{ready ? " Ask the engines now, or wait for the schedule." : ""}</p>
      {waiting.length > 0 && (
        <p class="warning" role="status">
          {waiting.map((p) => `${p.id} (set ${p.missing})`).join(", ")} {waiting.length === 1 ? "has" : "have"} no key on the server yet: {ready ? "they join" : "tracking starts"} on the schedule once the key is set and the
          server restarted (<code>answerwatch doctor</code> checks it). Meanwhile, install the <a href={`/b/${brandId}/traffic`}>AI traffic pixel</a> or send{" "}
          <a href={`/b/${brandId}/crawlers`}>crawler logs</a>: they need no key.
        </p>
      )}
      {!ready ? null : !jobId ? (
        <button type="button" class="primary" onClick={onStart}>
          Run now
        </button>
      ) : (
        <div role="status" aria-live="polite">
          <progress max={job?.progress.total || 1} value={job?.progress.completed ?? 0} />
          <p>
            {job ? `${job.status} — ${job.progress.completed} of ${job.progress.total} questions done${job.progress.failed ? ` (${job.progress.failed} failed)` : ""}` : "Starting…"}
            {job?.failedReason ? ` (${job.failedReason})` : ""}
          </p>
        </div>
      )}
      <p>
        <button type="button" class={jobId ? "primary" : undefined} onClick={() => navigate(`/b/${brandId}/overview`)}>
          Go to the overview
        </button>
      </p>
    </div>
  );
}

// Settings: the brand (fields, domains, aliases), competitors, prompts, platforms and schedule,
// members and roles (owners and admins), webhooks (secret shown once, test, deliveries) and which
// engines the server has keys for. Viewers see the values without edit controls; a refused write
// shows the server's message.
import { SHEET_TABLES, importFormula, sheetUrl } from "../../common/sheets";
import { isLogoDataUrl, LOGO_MAX_CHARS, LOGO_TYPES } from "../../common/logo";
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { Table } from "../components/table";
import { CopyField, ErrorBox, Field, Loading, unwrap, useAsync } from "../components/ui";
import { dateTime } from "../lib/format";
import { errorMessage } from "../lib/session";
import type { BrandContext } from "../lib/brand-context";

const lines = (text: string) => text.split("\n").map((l) => l.trim()).filter(Boolean);

/** A secret or link shown once, until the user says they have it. */
function ShownOnce({ title, note, value, done, onDone, preClass }: { title: string; note?: string; value: string; done: string; onDone(): void; preClass?: string }) {
  return (
    <div class="card secret" role="status">
      <p>
        <strong>{title}</strong> {note}
      </p>
      <pre class={preClass}>{value}</pre>
      <button type="button" onClick={onDone}>
        {done}
      </button>
    </div>
  );
}

/** The last column of a revocable thing: "revoked", or a Revoke button calling `path`. */
function revokeColumn<T extends { id: string; revoked_at: string | null }>(write: WriteFn, conn: BrandContext["conn"], path: (row: T) => string, done: string) {
  return {
    key: "state",
    header: "",
    value: (row: T) => (row.revoked_at ? "revoked" : "active"),
    render: (row: T) =>
      row.revoked_at ? (
        "revoked"
      ) : (
        <button type="button" class="link" onClick={() => write(() => conn.api("DELETE", path(row)), done)}>
          Revoke
        </button>
      ),
  };
}

/**
 * A role picker that starts on `initial` (the least powerful sensible choice, never the first listed
 * "owner") and returns to it when its form is reset.
 */
function RoleSelect({ label, roles, initial }: { label: string; roles: string[]; initial: string }) {
  const ref = useRef<HTMLSelectElement>(null);
  useEffect(() => {
    const select = ref.current!;
    select.value = initial;
    const form = select.form;
    const back = () => setTimeout(() => (select.value = initial));
    form?.addEventListener("reset", back);
    return () => form?.removeEventListener("reset", back);
  }, [initial, roles.join()]);
  return (
    <select ref={ref} name="role" aria-label={label}>
      {roles.map((r) => (
        <option key={r}>{r}</option>
      ))}
    </select>
  );
}

/** A date field's day as the instant it ends (UTC), or undefined when left empty. */
const endOfDay = (day: FormDataEntryValue | null) => (day ? new Date(`${day}T23:59:59Z`).toISOString() : undefined);

/**
 * An inline form's submit: its fields go to `run`; once that succeeds the note says `done` and the
 * form is cleared (a refused one keeps what was typed, to correct it).
 */
function submitWith(write: WriteFn, run: (fields: FormData) => PromiseLike<unknown>, done: string | ((fields: FormData) => string)) {
  return (e: Event) => {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const fields = new FormData(form);
    void write(() => run(fields), typeof done === "string" ? done : done(fields)).then((ok) => ok && form.reset());
  };
}

function Section({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section class="card settings-section" aria-label={title}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}

type WriteFn = ReturnType<typeof useWrite>["write"];

/** Runs a write and reports the server's answer beside the form. */
function useWrite(after: () => void) {
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  /** Runs a write and shows its outcome; true when it went through. */
  async function write(call: () => PromiseLike<unknown>, ok = "Saved."): Promise<boolean> {
    setMessage(null);
    try {
      const result = (await call()) as { error?: unknown } | undefined;
      if (result && typeof result === "object" && "error" in result && result.error) throw result.error;
      setMessage({ ok: true, text: ok });
      after();
      return true;
    } catch (e) {
      setMessage({ ok: false, text: errorMessage(e) });
      return false;
    }
  }
  const note = message && (
    <p class={message.ok ? "ok" : "error"} role={message.ok ? "status" : "alert"}>
      {message.text}
    </p>
  );
  return { write, note };
}

export function Settings({ ctx, reload }: { ctx: BrandContext; reload(): void }) {
  const { conn, brand, canEdit, canManage } = ctx;
  const [invited, setInvited] = useState<{ email: string; link: string; mailed: boolean } | null>(null);
  const data = useAsync(async () => {
    const [domains, competitors, prompts, members] = await Promise.all([
      conn.sb.from("brand_domains").select("id, domain, is_primary").eq("brand_id", brand.id).order("domain"),
      conn.sb.from("competitors").select("id, name, domain, aliases").eq("brand_id", brand.id).order("name"),
      conn.sb.from("prompts").select("id, text, is_active, is_branded, prompt_set_id").eq("brand_id", brand.id).order("created_at"),
      // Owners and admins see e-mail addresses (/api); everyone else sees the members by id.
      canManage
        ? conn.api<{ members: any[]; invitations: any[] }>("GET", `/api/organizations/${brand.organization_id}/members`).then((r) => ({ data: r, error: null }))
        : conn.sb.from("organization_members").select("id, user_id, role").eq("organization_id", brand.organization_id).then((r) => ({ data: r.data && { members: r.data, invitations: [] }, error: r.error })),
    ]);
    const people = unwrap(members as { data: unknown; error: unknown }) as { members: any[]; invitations: any[] };
    return { domains: unwrap(domains) as any[], competitors: unwrap(competitors) as any[], prompts: unwrap(prompts) as any[], members: people.members, invitations: people.invitations };
  }, [brand.id]);
  const after = () => {
    data.reload();
    reload();
  };
  const w = useWrite(after);
  if (data.loading && !data.data) return <Loading what="Loading settings" />;
  if (data.error) return <ErrorBox error={data.error} />;
  const d = data.data!;
  const disabled = !canEdit;

  async function saveBrand(event: Event) {
    event.preventDefault();
    const f = new FormData(event.target as HTMLFormElement);
    await w.write(() =>
      conn.sb
        .from("brands")
        .update({ name: String(f.get("name")), industry: String(f.get("industry")) || null, region: String(f.get("region")) || null, language: String(f.get("language")) || null, description: String(f.get("description")) || null, aliases: lines(String(f.get("aliases"))), is_active: f.get("is_active") === "on" })
        .eq("id", brand.id),
    );
  }

  return (
    <div class="settings">
      {!canEdit && <p class="muted">You are a viewer in this organization: settings are read-only for you.</p>}
      {w.note}
      <Section title="Brand">
        <form onSubmit={saveBrand}>
          <fieldset disabled={disabled}>
            <div class="row">
              <Field label="Name">
                <input name="name" defaultValue={brand.name} required />
              </Field>
              <Field label="Industry">
                <input name="industry" defaultValue={brand.industry ?? ""} />
              </Field>
            </div>
            <div class="row">
              <Field label="Region">
                <input name="region" defaultValue={brand.region ?? ""} maxLength={2} />
              </Field>
              <Field label="Language">
                <input name="language" defaultValue={brand.language ?? ""} maxLength={5} />
              </Field>
            </div>
            <Field label="Aliases" hint="Other names answers use for the brand, one per line">
              <textarea name="aliases" rows={2} defaultValue={(brand.aliases ?? []).map((a: any) => (typeof a === "string" ? a : a.text)).join("\n")} />
            </Field>
            <Field label="Description">
              <textarea name="description" rows={2} defaultValue={brand.description ?? ""} />
            </Field>
            <label class="check">
              <input type="checkbox" name="is_active" defaultChecked={brand.is_active} /> Tracked (runs and schedule)
            </label>
            {canEdit && (
              <button type="submit" class="primary">
                Save
              </button>
            )}
          </fieldset>
        </form>
      </Section>

      <Section title="Domains">
        <ul class="plain">
          {d.domains.map((x) => (
            <li key={x.id}>
              {x.domain} {x.is_primary && <span class="tag">primary</span>}{" "}
              {canEdit && !x.is_primary && (
                <button type="button" class="link" onClick={() => w.write(() => conn.sb.from("brand_domains").delete().eq("id", x.id), "Domain removed.")}>
                  Remove
                </button>
              )}
            </li>
          ))}
        </ul>
        {canEdit && (
          <form
            class="inline"
            onSubmit={(e) => {
              e.preventDefault();
              const input = (e.target as HTMLFormElement).elements.namedItem("domain") as HTMLInputElement;
              w.write(() => conn.sb.from("brand_domains").insert({ brand_id: brand.id, domain: input.value.trim() }), "Domain added.").then(() => (input.value = ""));
            }}
          >
            <input name="domain" placeholder="docs.example.com" aria-label="New domain" required />
            <button type="submit">Add domain</button>
          </form>
        )}
      </Section>

      <Section title="Competitors">
        <ul class="plain">
          {d.competitors.map((c) => (
            <li key={c.id}>
              <strong>{c.name}</strong> {c.domain && <span class="muted">{c.domain}</span>} {c.aliases?.length ? <span class="muted">aka {c.aliases.map((a: any) => (typeof a === "string" ? a : a.text)).join(", ")}</span> : null}{" "}
              {canEdit && (
                <button type="button" class="link" onClick={() => w.write(() => conn.sb.from("competitors").delete().eq("id", c.id), "Competitor removed.")}>
                  Remove
                </button>
              )}
            </li>
          ))}
        </ul>
        {canEdit && (
          <form
            class="inline"
            onSubmit={submitWith(
              w.write,
              (f) => conn.sb.from("competitors").insert({ brand_id: brand.id, name: String(f.get("name")).trim(), domain: String(f.get("domain")).trim() || null, aliases: String(f.get("aliases")).split("|").map((a) => a.trim()).filter(Boolean) }),
              "Competitor added.",
            )}
          >
            <input name="name" placeholder="Name" aria-label="Competitor name" required />
            <input name="domain" placeholder="domain.com" aria-label="Competitor domain" />
            <input name="aliases" placeholder="aliases, separated by |" aria-label="Competitor aliases" />
            <button type="submit">Add competitor</button>
          </form>
        )}
      </Section>

      <Section title="Prompts">
        <Table
          rows={d.prompts}
          rowKey={(p) => p.id}
          csvName={`${brand.slug}-prompt-list.csv`}
          columns={[
            { key: "text", header: "Prompt", value: (p) => p.text },
            { key: "is_branded", header: "Branded", value: (p) => (p.is_branded ? "yes" : "no") },
            {
              key: "is_active",
              header: "Active",
              value: (p) => (p.is_active ? "yes" : "no"),
              render: (p) =>
                canEdit ? (
                  <input type="checkbox" aria-label={`Track “${p.text}”`} checked={p.is_active} onChange={(e) => w.write(() => conn.sb.from("prompts").update({ is_active: (e.target as HTMLInputElement).checked }).eq("id", p.id))} />
                ) : p.is_active ? (
                  "yes"
                ) : (
                  "no"
                ),
            },
          ]}
        />
        {canEdit && (
          <form
            onSubmit={submitWith(
              w.write,
              async (f) => {
                const set = d.prompts[0]?.prompt_set_id ?? (unwrap(await conn.sb.from("prompt_sets").insert({ brand_id: brand.id, name: "Prompts" }).select("id").single()) as { id: string }).id;
                return conn.sb.from("prompts").insert(lines(String(f.get("prompts"))).map((text) => ({ prompt_set_id: set, brand_id: brand.id, text })));
              },
              (f) => `${lines(String(f.get("prompts"))).length} prompt(s) added.`,
            )}
          >
            <Field label="Add prompts" hint="One per line">
              <textarea name="prompts" rows={3} required />
            </Field>
            <button type="submit">Add</button>
          </form>
        )}
      </Section>

      <Section title="Platforms and schedule">
        <Table
          rows={conn.config.platforms}
          rowKey={(p) => p.id}
          csvName={`${brand.slug}-platforms.csv`}
          columns={[
            { key: "id", header: "Platform", value: (p) => p.id },
            { key: "configured", header: "Key on the server", value: (p) => (p.configured ? "yes" : `not yet: the server's operator sets ${p.missing ?? "its key"}`) },
            { key: "tracked", header: "Tracked", value: (p) => (ctx.platforms.find((x) => x.platform === p.id)?.is_enabled ? "yes" : "no"), render: (p) => <PlatformControl ctx={ctx} platform={p.id} configured={p.configured} write={w.write} /> },
            { key: "last", header: "Last checked", value: (p) => ctx.platforms.find((x) => x.platform === p.id)?.last_checked_at ?? null, render: (p) => dateTime(ctx.platforms.find((x) => x.platform === p.id)?.last_checked_at) },
          ]}
        />
      </Section>

      <Section title="Members">
        <p class="muted">
          {canManage
            ? "Invite someone by e-mail: they join when they accept, signed in with that address, through the invitation's link. Change roles or remove members here; only owners grant owner or admin."
            : "Only owners and admins invite members and change roles."}
        </p>
        <Table
          rows={d.members}
          rowKey={(m) => m.id}
          csvName={`${brand.slug}-members.csv`}
          columns={[
            { key: "user", header: "Member", value: (m) => `${m.email ?? m.user_id}${m.user_id === ctx.session.user.id ? " (you)" : ""}` },
            {
              key: "role",
              header: "Role",
              value: (m) => m.role,
              render: (m) =>
                canManage && m.user_id !== ctx.session.user.id ? (
                  <select aria-label="Role" value={m.role} onChange={(e) => w.write(() => conn.sb.from("organization_members").update({ role: (e.target as HTMLSelectElement).value }).eq("id", m.id), "Role changed.")}>
                    {["owner", "admin", "member", "viewer"].map((r) => (
                      <option key={r}>{r}</option>
                    ))}
                  </select>
                ) : (
                  m.role
                ),
            },
            ...(canManage
              ? [
                  {
                    key: "remove",
                    header: "",
                    value: () => "",
                    render: (m: any) =>
                      m.user_id !== ctx.session.user.id && (
                        <button type="button" class="link" onClick={() => w.write(() => conn.sb.from("organization_members").delete().eq("id", m.id), "Member removed.")}>
                          Remove
                        </button>
                      ),
                  },
                ]
              : []),
          ]}
        />
        {canManage && d.invitations.length > 0 && (
          <Table
            rows={d.invitations}
            rowKey={(i) => i.id}
            csvName={`${brand.slug}-invitations.csv`}
            columns={[
              { key: "email", header: "Invited", value: (i) => i.email },
              { key: "role", header: "Role", value: (i) => i.role },
              { key: "expires_at", header: "Expires", value: (i) => i.expires_at, render: (i) => dateTime(i.expires_at) },
              {
                key: "withdraw",
                header: "",
                value: () => "",
                render: (i) => (
                  <button type="button" class="link" onClick={() => w.write(() => conn.api("DELETE", `/api/organizations/${brand.organization_id}/invitations/${i.id}`), "Invitation withdrawn.")}>
                    Withdraw
                  </button>
                ),
              },
            ]}
          />
        )}
        {invited && (
          <ShownOnce
            title={`Invitation link for ${invited.email} — shown this once.`}
            note={invited.mailed ? "It was mailed to them too. Inviting again makes a new link (the old one stops working)." : "This server sends no mail: send it to them yourself. Inviting again makes a new link (the old one stops working)."}
            value={invited.link}
            done="Done"
            onDone={() => setInvited(null)}
            preClass="share-url"
          />
        )}
        {canManage && (
          <form
            class="inline"
            onSubmit={submitWith(
              w.write,
              async (f) => {
                const email = String(f.get("email"));
                const answer = await conn.api<{ link: string; mailed: boolean }>("POST", `/api/organizations/${brand.organization_id}/members`, { email, role: String(f.get("role")) });
                setInvited({ email, link: answer.link, mailed: answer.mailed });
              },
              "Invitation made: they answer it through its link, signed in with that address.",
            )}
          >
            <input name="email" type="email" placeholder="name@company.com" aria-label="E-mail to invite" required />
            <RoleSelect label="Role to invite at" roles={ctx.role === "owner" ? ["owner", "admin", "member", "viewer"] : ["member", "viewer"]} initial="member" />
            <button type="submit">Invite</button>
          </form>
        )}
        <LeaveOrganization ctx={ctx} write={w.write} />
      </Section>

      {canManage && <ShareLinks ctx={ctx} />}
      {canManage && <OrganizationLogo ctx={ctx} />}
      <ApiKeys ctx={ctx} />
      <McpConnect ctx={ctx} />
      {canManage && <Webhooks ctx={ctx} />}
    </div>
  );
}

function PlatformControl({ ctx, platform, configured, write }: { ctx: BrandContext; platform: string; configured: boolean; write: WriteFn }) {
  const row = ctx.platforms.find((p) => p.platform === platform);
  const { conn, brand, canEdit } = ctx;
  if (!canEdit) return <>{row?.is_enabled ? `${row.check_frequency}, ${row.samples} answer${row.samples === 1 ? "" : "s"} per prompt each run` : "no"}</>;
  const save = (patch: Record<string, unknown>) =>
    write(() => (row ? conn.sb.from("brand_platforms").update(patch).eq("brand_id", brand.id).eq("platform", platform) : conn.sb.from("brand_platforms").insert({ brand_id: brand.id, platform, ...patch })));
  return (
    <span class="platform-control">
      <input type="checkbox" aria-label={`Track ${platform}`} disabled={!configured && !row} checked={row?.is_enabled ?? false} onChange={(e) => save({ is_enabled: (e.target as HTMLInputElement).checked })} />
      {row && (
        <>
          <select aria-label={`${platform} check frequency`} value={row.check_frequency} onChange={(e) => save({ check_frequency: (e.target as HTMLSelectElement).value })}>
            {["hourly", "daily", "weekly", "monthly", "manual"].map((f) => (
              <option key={f}>{f}</option>
            ))}
          </select>
          <label class="inline-label">
            <input type="number" min={1} max={10} aria-label={`${platform} samples`} value={row.samples} onChange={(e) => save({ samples: Number((e.target as HTMLInputElement).value) })} />
            <span class="muted">answers per prompt each run</span>
          </label>
        </>
      )}
    </span>
  );
}

/** What an endpoint made here receives: signed events, or a chat channel's messages (Slack, Teams, Mattermost incoming webhooks). */
const WEBHOOK_KINDS: Record<string, { label: string; body: { format: "standard" | "slack"; events: string[] } }> = {
  standard: { label: "Signed JSON events (every event)", body: { format: "standard", events: [] } },
  "chat-weekly": { label: "Chat: weekly digest", body: { format: "slack", events: ["digest.weekly"] } },
  "chat-monthly": { label: "Chat: monthly digest", body: { format: "slack", events: ["digest.monthly"] } },
  "chat-alerts": { label: "Chat: visibility alerts", body: { format: "slack", events: ["visibility.changed"] } },
};

function Webhooks({ ctx }: { ctx: BrandContext }) {
  const { conn, brand } = ctx;
  const list = useAsync(async () => (await conn.api<{ endpoints: any[] }>("GET", "/api/webhooks")).endpoints.filter((e) => e.organization_id === brand.organization_id), [brand.id]);
  const [secret, setSecret] = useState<string | null>(null);
  const [deliveries, setDeliveries] = useState<{ id: string; rows: any[] } | null>(null);
  const w = useWrite(list.reload);
  return (
    <Section title="Webhooks">
      {w.note}
      {secret && <ShownOnce title="Signing secret — shown this once." note="Copy it now; it is never shown again." value={secret} done="I have copied it" onDone={() => setSecret(null)} />}
      {list.loading ? (
        <Loading />
      ) : list.error ? (
        <ErrorBox error={list.error} />
      ) : (
        <ul class="plain">
          {list.data!.map((e) => (
            <li key={e.id}>
              {e.url} <span class="muted">{e.format === "slack" ? "chat message: " : ""}{e.events?.length ? e.events.join(", ") : "all events"}</span>{" "}
              <button type="button" class="link" onClick={() => w.write(() => conn.api("POST", `/api/webhooks/${e.id}/test`), "Test event queued.")}>
                Test
              </button>{" "}
              <button type="button" class="link" onClick={async () => setDeliveries({ id: e.id, rows: (await conn.api<{ deliveries: any[] }>("GET", `/api/webhooks/${e.id}/deliveries`)).deliveries })}>
                Deliveries
              </button>{" "}
              <button type="button" class="link" onClick={() => w.write(() => conn.api("DELETE", `/api/webhooks/${e.id}`), "Endpoint removed.")}>
                Remove
              </button>
              {deliveries && deliveries.id === e.id && (
                <ul>
                  {deliveries.rows.length ? deliveries.rows.map((dl) => <li key={dl.id}>{`${dateTime(dl.created_at)} ${dl.event_type}: ${dl.status}${dl.last_status ? ` (HTTP ${dl.last_status})` : ""}`}</li>) : <li>No deliveries yet.</li>}
                </ul>
              )}
            </li>
          ))}
        </ul>
      )}
      <form
        class="inline"
        onSubmit={submitWith(
          w.write,
          async (f) => setSecret((await conn.api<{ secret: string }>("POST", "/api/webhooks", { url: String(f.get("url")), organization_id: brand.organization_id, brand_id: brand.id, ...WEBHOOK_KINDS[String(f.get("kind"))]!.body })).secret),
          "Endpoint created.",
        )}
      >
        <input name="url" type="url" placeholder="https://hooks.example.com/answerwatch" aria-label="Webhook URL" required />
        <select name="kind" aria-label="What the endpoint receives">
          {Object.entries(WEBHOOK_KINDS).map(([value, k]) => (
            <option key={value} value={value}>
              {k.label}
            </option>
          ))}
        </select>
        <button type="submit">Add endpoint</button>
      </form>
    </Section>
  );
}

/** Personal API keys for scripts and MCP clients: the secret shown once; revocable. */
function ApiKeys({ ctx }: { ctx: BrandContext }) {
  const { conn, brand, role } = ctx;
  const list = useAsync(async () => (await conn.api<{ keys: any[] }>("GET", "/api/keys")).keys.filter((k) => k.organization_id === brand.organization_id), [brand.organization_id]);
  const [secret, setSecret] = useState<string | null>(null);
  const w = useWrite(list.reload);
  const roles = ["owner", "admin", "member", "viewer"];
  const allowed = roles.slice(roles.indexOf(role));
  return (
    <Section title="API keys">
      <p class="muted">For scripts, BI tools and MCP clients: send it as Authorization: Bearer. It acts as you, in this organization, with the role you choose (at most yours).</p>
      {w.note}
      {secret && <ShownOnce title="API key — shown this once." note="Copy it now; only its first characters are kept." value={secret} done="I have copied it" onDone={() => setSecret(null)} />}
      {list.loading ? (
        <Loading />
      ) : list.error ? (
        <ErrorBox error={list.error} />
      ) : (
        <Table
          rows={list.data!}
          rowKey={(k) => k.id}
          csvName={`${brand.slug}-api-keys.csv`}
          columns={[
            { key: "name", header: "Name", value: (k) => k.name },
            { key: "prefix", header: "Key", value: (k) => `${k.prefix}…` },
            { key: "role", header: "Role", value: (k) => k.role },
            { key: "last_used_at", header: "Last used", value: (k) => k.last_used_at, render: (k) => dateTime(k.last_used_at) },
            { key: "expires_at", header: "Expires", value: (k) => k.expires_at, render: (k) => dateTime(k.expires_at) },
            revokeColumn<any>(w.write, conn, (k) => `/api/keys/${k.id}`, "Key revoked."),
          ]}
        />
      )}
      <form
        class="inline"
        onSubmit={submitWith(
          w.write,
          async (f) => setSecret((await conn.api<{ secret: string }>("POST", "/api/keys", { name: String(f.get("name")), organization_id: brand.organization_id, role: String(f.get("role")), expires_at: endOfDay(f.get("expires")) })).secret),
          "Key created.",
        )}
      >
        <input name="name" placeholder="What it is for" aria-label="Key name" required maxLength={100} />
        <RoleSelect label="Key role" roles={allowed} initial={allowed[allowed.length - 1]!} />
        <input name="expires" type="date" aria-label="Expires on (optional)" />
        <button type="submit">Create key</button>
      </form>
    </Section>
  );
}

/** How to point an MCP client (Claude Desktop, Cursor, …) at this server: the URL and a config snippet with an API key. */
function McpConnect({ ctx }: { ctx: BrandContext }) {
  const url = `${ctx.conn.config.publicUrl}/mcp`;
  const snippet = JSON.stringify({ mcpServers: { answerwatch: { url, headers: { Authorization: "Bearer <an API key from above>" } } } }, null, 2);
  return (
    <Section title="Connect an MCP client">
      <p class="muted">
        AI assistants that speak the Model Context Protocol (Streamable HTTP) can read this brand's insights and start runs. Create an API key above, then add this server to the client's configuration.
      </p>
      <CopyField label="MCP endpoint" value={url} />
      <pre class="snippet" aria-label="MCP client configuration">{snippet}</pre>
      <p class="muted">
        Clients that only launch local commands can bridge with <code>npx mcp-remote {url} --header "Authorization: Bearer $KEY"</code>. The REST API and every <code>/api</code> body are described in the{" "}
        <a href="/docs" target="_self">
          API docs
        </a>
        .
      </p>
    </Section>
  );
}

/** Read-only links to this brand's overview, prompts and sources, for people without an account. */
function ShareLinks({ ctx }: { ctx: BrandContext }) {
  const { conn, brand } = ctx;
  const list = useAsync(async () => (await conn.api<{ links: any[] }>("GET", `/api/share-links?brand_id=${brand.id}`)).links, [brand.id]);
  const [url, setUrl] = useState<string | null>(null);
  const w = useWrite(list.reload);
  return (
    <Section title="Share links">
      <p class="muted">A link shows this brand's overview, prompts and sources to anyone who has it — read-only, no account — until it expires or you revoke it.</p>
      {w.note}
      {url && <ShownOnce title="Share link — shown this once." value={url} done="Done" onDone={() => setUrl(null)} preClass="share-url" />}
      {url && <SheetUrls url={url} />}
      {list.loading ? (
        <Loading />
      ) : list.error ? (
        <ErrorBox error={list.error} />
      ) : (
        <Table
          rows={list.data!}
          rowKey={(l) => l.id}
          csvName={`${brand.slug}-share-links.csv`}
          columns={[
            { key: "prefix", header: "Link", value: (l) => `…/share/${l.prefix}…` },
            { key: "created_at", header: "Created", value: (l) => l.created_at, render: (l) => dateTime(l.created_at) },
            { key: "expires_at", header: "Expires", value: (l) => l.expires_at, render: (l) => dateTime(l.expires_at) },
            revokeColumn<any>(w.write, conn, (l) => `/api/share-links/${l.id}`, "Link revoked."),
          ]}
        />
      )}
      <form
        class="inline"
        onSubmit={submitWith(w.write, async (f) => setUrl((await conn.api<{ url: string }>("POST", "/api/share-links", { brand_id: brand.id, expires_at: endOfDay(f.get("expires")) })).url), "Link created.")}
      >
        <input name="expires" type="date" aria-label="Link expires on (optional)" />
        <button type="submit">Create share link</button>
      </form>
    </Section>
  );
}

/** The largest file whose base64 data: URL fits in LOGO_MAX_CHARS (the longest type's prefix counted). */
const LOGO_MAX_BYTES = Math.floor((LOGO_MAX_CHARS - "data:image/svg+xml;base64,".length) / 4) * 3;

function dataUrlOf(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error("The file could not be read"));
    reader.readAsDataURL(file);
  });
}

/**
 * The organization's logo on client reports (white-label: its name and logo, no answerwatch). Kept
 * inside the organization's row as a data: URL, so a report shows it without a request.
 */
function OrganizationLogo({ ctx }: { ctx: BrandContext }) {
  const { conn, brand } = ctx;
  const org = useAsync(async () => unwrap(await conn.sb.from("organizations").select("id, name, logo").eq("id", brand.organization_id).single()) as { id: string; name: string; logo: string | null }, [brand.organization_id]);
  const w = useWrite(org.reload);
  const [problem, setProblem] = useState<string | null>(null);
  const save = (logo: string | null, done: string) => w.write(() => conn.sb.from("organizations").update({ logo }).eq("id", brand.organization_id), done);
  async function upload(event: Event) {
    const input = event.target as HTMLInputElement;
    const file = input.files?.[0];
    input.value = "";
    setProblem(null);
    if (!file) return;
    if (!(LOGO_TYPES as readonly string[]).includes(file.type)) return setProblem(`${file.name} is not a PNG, JPEG, WebP or SVG image.`);
    if (file.size > LOGO_MAX_BYTES) return setProblem(`${file.name} is ${Math.ceil(file.size / 1024)} KB: a logo may be at most ${Math.floor(LOGO_MAX_BYTES / 1024)} KB.`);
    const url = await dataUrlOf(file);
    if (!isLogoDataUrl(url)) return setProblem(`${file.name} could not be read as a ${file.type} image.`);
    await save(url, "Logo saved: client reports show it.");
  }
  return (
    <Section title="Logo on client reports">
      <p class="muted">
        Client reports show the organization's name and this logo, without mentioning answerwatch. PNG, JPEG, WebP or SVG, at most {Math.floor(LOGO_MAX_BYTES / 1024)} KB.
      </p>
      {w.note}
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      {org.loading && !org.data ? (
        <Loading />
      ) : org.error ? (
        <ErrorBox error={org.error} />
      ) : org.data?.logo ? (
        <img class="logo-preview" src={org.data.logo} alt={`Logo of ${org.data.name}`} />
      ) : (
        <p class="muted">No logo: reports show the organization's name and say they were made with answerwatch.</p>
      )}
      <div class="inline">
        <label>
          {org.data?.logo ? "Replace the logo" : "Upload a logo"} <input type="file" accept={LOGO_TYPES.join(",")} onChange={upload} />
        </label>
        {org.data?.logo && (
          <button type="button" class="link" onClick={() => save(null, "Logo removed.")}>
            Remove the logo
          </button>
        )}
      </div>
    </Section>
  );
}

/**
 * The link's insights tables as CSV URLs (no header needed): what Google Sheets' IMPORTDATA and
 * Looker Studio's CSV connector read. Shown with the link, since the link is shown only once.
 */
function SheetUrls({ url }: { url: string }) {
  return (
    <details class="sheet-urls">
      <summary>Use in a spreadsheet or Looker Studio</summary>
      <p class="muted">
        Each table below is CSV at its URL, read with the link's rights; add <code>?p_from=YYYY-MM-DD&amp;p_to=YYYY-MM-DD</code> for another window than the last 30 days. In Google Sheets, paste the formula into a cell.
      </p>
      <table>
        <thead>
          <tr>
            <th>Table</th>
            <th>Google Sheets</th>
          </tr>
        </thead>
        <tbody>
          {SHEET_TABLES.map((table) => (
            <tr key={table}>
              <td>
                <a href={sheetUrl(url, table)} target="_blank" rel="noreferrer">
                  {table.replace(/^insights_/, "").replaceAll("_", " ")}
                </a>
              </td>
              <td>
                <code>{importFormula(url, table)}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}

/** Every member may leave the organization; the server refuses its last owner (P0001), with the reason shown. */
function LeaveOrganization({ ctx, write }: { ctx: BrandContext; write: WriteFn }) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <p>
        <button type="button" class="link" onClick={() => setAsking(true)}>
          Leave this organization…
        </button>
      </p>
    );
  return (
    <p role="group" aria-label="Leave the organization">
      You will lose access to its brands until someone invites you again.{" "}
      <button
        type="button"
        onClick={() =>
          write(async () => {
            const res = await ctx.conn.sb.from("organization_members").delete().eq("organization_id", ctx.brand.organization_id).eq("user_id", ctx.session.user.id).select("id");
            if (!res.error && res.data?.length) location.assign("/");
            return res;
          }, "You left the organization.")
        }
      >
        Leave
      </button>{" "}
      <button type="button" class="link" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </p>
  );
}

/**
 * Ansvisor's supabase-js call chains on the brand tables — copied call chains for a compatibility test.
 *
 * Source: https://github.com/ansvisor/ansvisor
 * Commit: 91146ce3e34ecfdb8fef919aa337c5ede8511551 (2026-08-22, "feat(insights): serve the dashboard
 *         from daily rollups instead of rescanning history (#773)")
 * License: MIT (reproduced below). Every `source` field is `<path in that repository>:<lines>`.
 *
 * What this file is: each entry's `run` is one query chain as Ansvisor writes it — the same table
 * names, select strings, filters, modifiers and write payload keys, in the same order — with
 * Ansvisor's variables (brandId, input.*, req.params.*, …) bound from `ctx` or from FIXTURE. Where
 * Ansvisor builds a chain conditionally (`if (opts?.x) query = query.eq(…)`), the branches taken are
 * written out and the `note` says which. Values Ansvisor computes elsewhere (slugify(name),
 * getFaviconUrl(domain), the tracking worker's parsed metrics) are literals in FIXTURE. Nothing in
 * answerwatch's own naming is used: `content_opportunities`, `prompt_suggestions`, `topics`,
 * `prompt_result_citations`, `prompt_target_urls`, `model_used` etc. are Ansvisor's names on purpose
 * (see README.md next to this file for what answerwatch has to alias or add).
 *
 * `client` says which client Ansvisor uses: "user" = the signed-in user's cookie client in
 * web/src/lib/actions (anon key + user JWT, row-level security applies; the user is an org admin),
 * "service" = `supabaseAdmin` in server/src (service-role key, bypasses RLS). Replay each chain with
 * the matching client.
 *
 * Order: run CHAINS in array order (`step` is the 1-based position): creates, then updates and
 * reads, then deletes. `needs` lists the ctx fields a chain reads; `produces` the ctx fields its
 * `capture` sets from the response (e.g. the wizard's brand insert sets ctx.brandId). `requires`
 * lists what answerwatch lacks today for the chain to succeed (a table, column, alias or rpc).
 *
 * ---------------------------------------------------------------------------------------------
 * MIT License
 *
 * Copyright (c) 2026 Empler AI Inc.
 *
 * Permission is hereby granted, free of charge, to any person obtaining a copy
 * of this software and associated documentation files (the "Software"), to deal
 * in the Software without restriction, including without limitation the rights
 * to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
 * copies of the Software, and to permit persons to whom the Software is
 * furnished to do so, subject to the following conditions:
 *
 * The above copyright notice and this permission notice shall be included in all
 * copies or substantial portions of the Software.
 *
 * THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
 * IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
 * FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
 * AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
 * LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
 * OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
 * SOFTWARE.
 * ---------------------------------------------------------------------------------------------
 */
import type { SupabaseClient } from "@supabase/supabase-js";

export const ANSVISOR_REPOSITORY = "https://github.com/ansvisor/ansvisor";
export const ANSVISOR_COMMIT = "91146ce3e34ecfdb8fef919aa337c5ede8511551";

/** Ids the chains need. The test fills userId/organizationId (an org whose signed-in user is an admin); chains fill the rest. */
export interface Ctx {
  userId: string;
  organizationId: string;
  brandId?: string;
  /** The wizard's primary domain row (replaced by syncDomains, then this is the synced row). */
  brandDomainId?: string;
  /** A second domain added from settings (addDomain). */
  extraDomainId?: string;
  topicId?: string;
  topicName?: string;
  /** A topic created one-off (createTopic / the suggestions' findOrCreateTopic). */
  extraTopicId?: string;
  promptSetId?: string;
  promptId?: string;
  /** A prompt added after the wizard (addPromptToSet). */
  extraPromptId?: string;
  competitorId?: string;
  brandPlatformId?: string;
  resultId?: string;
  resultCreatedAt?: string;
  citationUrlId?: number;
  opportunityId?: string;
  suggestionId?: string;
}

export type CtxKey = keyof Ctx;

/** What a chain resolves to (a PostgrestResponse / PostgrestSingleResponse satisfies it). */
export interface ChainResult {
  error: unknown;
  data?: unknown;
  count?: number | null;
}

export interface Chain {
  /** 1-based position in CHAINS: the order to run them in. */
  step: number;
  phase: "create" | "update" | "read" | "delete";
  name: string;
  /** File and lines in ansvisor/ansvisor at ANSVISOR_COMMIT. */
  source: string;
  client: "user" | "service";
  needs: CtxKey[];
  produces?: CtxKey[];
  /** What answerwatch has to add or alias before this chain can succeed (empty: should work today). */
  requires?: string[];
  note?: string;
  run: (sb: SupabaseClient, ctx: Ctx) => PromiseLike<ChainResult>;
  /** Sets `produces` on ctx from the response. */
  capture?: (res: ChainResult, ctx: Ctx) => void;
}

/** The inputs Ansvisor's UI would pass (the brand wizard, settings, tracking). */
export const FIXTURE = {
  brandName: "Acme Analytics",
  /** slugify('Acme Analytics') (web/src/lib/slug.ts) */
  slug: "acme-analytics",
  domain: "acme-analytics.example",
  country: "US",
  /** getFaviconUrl(domain) (web/src/lib/favicon.ts) */
  logoUrl: "https://www.google.com/s2/favicons?domain=acme-analytics.example&sz=128",
  description: "Product analytics for small teams",
  region: "US",
  state: "CA",
  language: "en",
  topicNames: ["Product analytics", "Pricing"],
  promptSetName: "Brand Setup Prompts",
  promptText: "What is the best product analytics tool for a startup?",
  extraPromptText: "Acme Analytics vs Globex Insights",
  /** Cloro scrapers (web/src/config/prompt-options.ts SCRAPER_GROUPS) */
  platforms: ["chatgpt-web", "perplexity-web"],
  /** API models (MODEL_GROUPS) */
  models: ["claude-sonnet-5"],
  competitor: { name: "Globex Insights", domain: "https://globex.example/" },
  extraDomain: { domain: "acme-analytics.example.org", country: "DE" },
  extraTopicName: "Integrations",
  modelUsed: "claude-sonnet-5",
  citationUrl: "https://acme-analytics.example/blog/startup-analytics",
} as const;

/** First row of a response whose data is a row or a list of rows. */
function row(res: ChainResult): Record<string, unknown> {
  const d = res.data as Record<string, unknown> | Record<string, unknown>[] | null | undefined;
  const r = Array.isArray(d) ? d[0] : d;
  if (!r) throw new Error(`no row in response: ${JSON.stringify(res.error ?? res.data)}`);
  return r;
}

const ZERO_UUID = "00000000-0000-0000-0000-000000000000";

const chains: Omit<Chain, "step">[] = [
  // ============================================================================================
  // Brand wizard (web/src/app/[locale]/(dashboard)/dashboard/brands/new/page.tsx → server actions)
  // ============================================================================================
  {
    phase: "read",
    name: "wizard: the user's organization from profiles",
    source: "web/src/app/[locale]/(dashboard)/dashboard/brands/new/page.tsx:410-414",
    client: "user",
    needs: ["userId"],
    requires: ["table profiles (id = auth user id, organization_id, role, full_name, avatar_url) — answerwatch has organization_members"],
    note: "Browser client (web/src/lib/supabase/client.ts) right before createBrand; not one of the brand tables but the wizard cannot start without it.",
    run: (supabase, ctx) => {
      const user = { id: ctx.userId };
      return supabase
        .from('profiles')
        .select('organization_id')
        .eq('id', user.id)
        .single();
    },
  },
  {
    phase: "read",
    name: "createBrand: count the org's brands for the plan limit (head)",
    source: "web/src/lib/actions/brand.ts:88-91",
    client: "user",
    needs: ["organizationId"],
    run: (supabase, ctx) => {
      const input = { organizationId: ctx.organizationId };
      return supabase
        .from('brands')
        .select('id', { count: 'exact', head: true })
        .eq('organization_id', input.organizationId);
    },
  },
  {
    phase: "create",
    name: "createBrand: insert the brand with logo_url, description, region, state, language",
    source: "web/src/lib/actions/brand.ts:97-113",
    client: "user",
    needs: ["organizationId"],
    produces: ["brandId"],
    requires: ["brands.logo_url text", "brands.description text", "brands.state text CHECK (state IS NULL OR state ~ '^[A-Z]{2}$')"],
    run: (supabase, ctx) => {
      const input = { organizationId: ctx.organizationId, name: ` ${FIXTURE.brandName} `, logoUrl: FIXTURE.logoUrl, industry: undefined as string | undefined, description: FIXTURE.description, region: FIXTURE.region, state: FIXTURE.state, language: FIXTURE.language };
      const slug = FIXTURE.slug;
      return supabase
        .from('brands')
        .insert({
          organization_id: input.organizationId,
          name: input.name.trim(),
          slug,
          logo_url: input.logoUrl || null,
          industry: input.industry || null,
          description: input.description || null,
          region: input.region || 'US',
          // State only makes sense for US brands; drop it silently otherwise so
          // a stale value from a region switch can't leak into the row.
          state: (input.region || 'US') === 'US' ? input.state || null : null,
          language: input.language || 'en',
        })
        .select()
        .single();
    },
    capture: (res, ctx) => {
      ctx.brandId = row(res).id as string;
    },
  },
  {
    phase: "create",
    name: "createBrand: insert the primary domain with country",
    source: "web/src/lib/actions/brand.ts:120-130",
    client: "user",
    needs: ["brandId"],
    produces: ["brandDomainId"],
    requires: ["brand_domains.country text"],
    run: (supabase, ctx) => {
      const brand = { id: ctx.brandId! };
      const input = { domains: [{ domain: FIXTURE.domain, country: FIXTURE.country as string | undefined, isPrimary: true }] };
      return supabase
        .from('brand_domains')
        .insert(
          input.domains.map((d) => ({
            brand_id: brand.id,
            domain: d.domain.trim(),
            country: d.country?.trim() || null,
            is_primary: d.isPrimary,
          })),
        )
        .select();
    },
    capture: (res, ctx) => {
      ctx.brandDomainId = row(res).id as string;
    },
  },
  {
    phase: "update",
    name: "wizard Back→Continue (#447): updateBrand in place, returning the brand with its domains",
    source: "web/src/lib/actions/brand.ts:167-172",
    client: "user",
    needs: ["brandId"],
    requires: ["brands.logo_url", "brands.description", "brands.state"],
    note: "Payload as updateBrand builds it for the wizard's call (brands/new/page.tsx:382): name+slug, logo_url, description, region, state, language.",
    run: (supabase, ctx) => {
      const id = ctx.brandId!;
      const payload: Record<string, unknown> = {
        name: FIXTURE.brandName,
        slug: FIXTURE.slug,
        logo_url: FIXTURE.logoUrl,
        description: FIXTURE.description,
        region: FIXTURE.region,
        state: FIXTURE.state,
        language: FIXTURE.language,
      };
      return supabase
        .from('brands')
        .update(payload)
        .eq('id', id)
        .select('*, brand_domains(*)')
        .single();
    },
  },
  {
    phase: "delete",
    name: "syncDomains: drop the brand's domains before re-inserting them",
    source: "web/src/lib/actions/brand-domain.ts:123",
    client: "user",
    needs: ["brandId"],
    note: "Part of the wizard/settings save; the rows come back in the next chain.",
    run: (supabase, ctx) => {
      const brandId = ctx.brandId!;
      return supabase.from('brand_domains').delete().eq('brand_id', brandId);
    },
  },
  {
    phase: "create",
    name: "syncDomains: insert the domain list (with country)",
    source: "web/src/lib/actions/brand-domain.ts:131-141",
    client: "user",
    needs: ["brandId"],
    produces: ["brandDomainId"],
    requires: ["brand_domains.country text"],
    run: (supabase, ctx) => {
      const brandId = ctx.brandId!;
      const domains = [{ domain: FIXTURE.domain, country: FIXTURE.country as string | undefined, isPrimary: true }];
      return supabase
        .from('brand_domains')
        .insert(
          domains.map((d) => ({
            brand_id: brandId,
            domain: d.domain.trim(),
            country: d.country?.trim() || null,
            is_primary: d.isPrimary,
          })),
        )
        .select();
    },
    capture: (res, ctx) => {
      ctx.brandDomainId = row(res).id as string;
    },
  },
  {
    phase: "delete",
    name: "createTopics: remove the brand's topics (re-submit guard)",
    source: "web/src/lib/actions/topic.ts:22",
    client: "user",
    needs: ["brandId"],
    requires: ["table topics"],
    run: (supabase, ctx) => {
      const brandId = ctx.brandId!;
      return supabase.from('topics').delete().eq('brand_id', brandId);
    },
  },
  {
    phase: "create",
    name: "createTopics: insert the wizard's topics",
    source: "web/src/lib/actions/topic.ts:24-29",
    client: "user",
    needs: ["brandId"],
    produces: ["topicId", "topicName"],
    requires: ["table topics (id, brand_id, name, is_active default true, created_at)"],
    run: (supabase, ctx) => {
      const brandId = ctx.brandId!;
      const names = [...FIXTURE.topicNames];
      const rows = names.map((name) => ({
        brand_id: brandId,
        name: name.trim(),
      }));
      return supabase.from('topics').insert(rows).select();
    },
    capture: (res, ctx) => {
      const r = row(res);
      ctx.topicId = r.id as string;
      ctx.topicName = r.name as string;
    },
  },
  {
    phase: "read",
    name: "savePromptSet → getBrandContext: the brand's organization and region",
    source: "web/src/lib/actions/prompt.ts:96-100",
    client: "user",
    needs: ["brandId"],
    run: (supabase, ctx) => {
      const brandId = ctx.brandId!;
      return supabase
        .from('brands')
        .select('organization_id, region')
        .eq('id', brandId)
        .single();
    },
  },
  {
    phase: "read",
    name: "savePromptSet → getOrgPromptCount: prompts of the org through two !inner embeds (head count)",
    source: "web/src/lib/actions/prompt.ts:81-87",
    client: "user",
    needs: ["organizationId"],
    note: "Filter on a column two embeds deep: prompt_sets.brands.organization_id.",
    run: (supabase, ctx) => {
      const organizationId = ctx.organizationId;
      return supabase
        .from('prompts')
        .select('id, prompt_sets!inner(brand_id, brands!inner(organization_id))', {
          count: 'exact',
          head: true,
        })
        .eq('prompt_sets.brands.organization_id', organizationId);
    },
  },
  {
    phase: "read",
    name: "savePromptSet: the brand's own prompt count (!inner embed, head count)",
    source: "web/src/lib/actions/prompt.ts:200-203",
    client: "user",
    needs: ["brandId"],
    run: (supabase, ctx) => {
      const input = { brandId: ctx.brandId! };
      return supabase
        .from('prompts')
        .select('id, prompt_sets!inner(brand_id)', { count: 'exact', head: true })
        .eq('prompt_sets.brand_id', input.brandId);
    },
  },
  {
    phase: "read",
    name: "savePromptSet: existing prompt sets of the brand",
    source: "web/src/lib/actions/prompt.ts:222-225",
    client: "user",
    needs: ["brandId"],
    run: (supabase, ctx) => {
      const input = { brandId: ctx.brandId! };
      return supabase
        .from('prompt_sets')
        .select('id')
        .eq('brand_id', input.brandId);
    },
  },
  {
    phase: "create",
    name: "savePromptSet: insert the prompt set",
    source: "web/src/lib/actions/prompt.ts:234-241",
    client: "user",
    needs: ["brandId"],
    produces: ["promptSetId"],
    run: (supabase, ctx) => {
      const input = { brandId: ctx.brandId!, name: FIXTURE.promptSetName };
      return supabase
        .from('prompt_sets')
        .insert({
          brand_id: input.brandId,
          name: input.name,
        })
        .select()
        .single();
    },
    capture: (res, ctx) => {
      ctx.promptSetId = row(res).id as string;
    },
  },
  {
    phase: "read",
    name: "savePromptSet: the brand's shopping_mode_enabled",
    source: "web/src/lib/actions/prompt.ts:251-255",
    client: "user",
    needs: ["brandId"],
    requires: ["brands.shopping_mode_enabled boolean NOT NULL DEFAULT false"],
    run: (supabase, ctx) => {
      const input = { brandId: ctx.brandId! };
      return supabase
        .from('brands')
        .select('shopping_mode_enabled')
        .eq('id', input.brandId)
        .single();
    },
  },
  {
    phase: "read",
    name: "resolveTopicId: a topic by exact name (limit 1, maybeSingle)",
    source: "web/src/lib/actions/prompt.ts:115-121",
    client: "user",
    needs: ["brandId", "topicName"],
    requires: ["table topics"],
    run: (supabase, ctx) => {
      const brandId = ctx.brandId!;
      const category = ctx.topicName!;
      return supabase
        .from('topics')
        .select('id')
        .eq('brand_id', brandId)
        .eq('name', category)
        .limit(1)
        .maybeSingle();
    },
  },
  {
    phase: "create",
    name: "savePromptSet: insert the prompts with topic_id, platforms, regions, models (no brand_id)",
    source: "web/src/lib/actions/prompt.ts:276-291",
    client: "user",
    needs: ["promptSetId", "topicId", "topicName"],
    produces: ["promptId"],
    requires: ["prompts.topic_id uuid REFERENCES topics ON DELETE SET NULL"],
    note: "Rows exactly as the loop at prompt.ts:270-286 builds them; brand_id is never sent (answerwatch copies it from the prompt set).",
    run: (supabase, ctx) => {
      const set = { id: ctx.promptSetId! };
      const brandRegion = FIXTURE.region;
      const rows = [
        {
          prompt_set_id: set.id,
          text: FIXTURE.promptText,
          category: ctx.topicName! || null,
          topic_id: ctx.topicId! || null,
          platforms: [...FIXTURE.platforms],
          regions: [brandRegion],
          models: [...FIXTURE.models],
          is_active: true,
        },
      ];
      return supabase
        .from('prompts')
        .insert(rows)
        .select();
    },
    capture: (res, ctx) => {
      ctx.promptId = row(res).id as string;
    },
  },

  // ============================================================================================
  // Competitors and platforms (wizard step 5, brand settings)
  // ============================================================================================
  {
    phase: "create",
    name: "addCompetitor",
    source: "web/src/lib/actions/competitor.ts:35-46",
    client: "user",
    needs: ["brandId"],
    produces: ["competitorId"],
    run: (supabase, ctx) => {
      const brandId = ctx.brandId!;
      const input = { name: FIXTURE.competitor.name, domain: FIXTURE.competitor.domain };
      return supabase
        .from('competitors')
        .insert({
          brand_id: brandId,
          name: input.name.trim(),
          domain: input.domain
            .trim()
            .replace(/^https?:\/\//, '')
            .replace(/\/+$/, ''),
        })
        .select()
        .single();
    },
    capture: (res, ctx) => {
      ctx.competitorId = row(res).id as string;
    },
  },
  {
    phase: "read",
    name: "getCompetitors",
    source: "web/src/lib/actions/competitor.ts:19-23",
    client: "user",
    needs: ["brandId"],
    run: (supabase, ctx) => {
      const brandId = ctx.brandId!;
      return supabase
        .from('competitors')
        .select('*')
        .eq('brand_id', brandId)
        .order('created_at', { ascending: true });
    },
  },
  {
    phase: "read",
    name: "syncBrandPlatforms: the brand's organization",
    source: "web/src/lib/actions/brand-platform.ts:46-50",
    client: "user",
    needs: ["brandId"],
    run: (supabase, ctx) => {
      const brandId = ctx.brandId!;
      return supabase
        .from('brands')
        .select('organization_id')
        .eq('id', brandId)
        .single();
    },
  },
  {
    phase: "delete",
    name: "syncBrandPlatforms: drop the brand's platforms",
    source: "web/src/lib/actions/brand-platform.ts:62-65",
    client: "user",
    needs: ["brandId"],
    run: (supabase, ctx) => {
      const brandId = ctx.brandId!;
      return supabase
        .from('brand_platforms')
        .delete()
        .eq('brand_id', brandId);
    },
  },
  {
    phase: "create",
    name: "syncBrandPlatforms: insert platforms with check_frequency and api_model",
    source: "web/src/lib/actions/brand-platform.ts:74-85",
    client: "user",
    needs: ["brandId"],
    produces: ["brandPlatformId"],
    requires: ["brand_platforms.api_model text (answerwatch: model)", "brand_platforms.updated_at"],
    run: (supabase, ctx) => {
      const brandId = ctx.brandId!;
      const platforms = [
        { platform: 'chatgpt', isEnabled: true, checkFrequency: 'daily', apiModel: 'chatgpt-web' },
        { platform: 'claude', isEnabled: true, checkFrequency: 'weekly', apiModel: 'claude-sonnet-5' },
      ];
      return supabase
        .from('brand_platforms')
        .insert(
          platforms.map((p) => ({
            brand_id: brandId,
            platform: p.platform,
            is_enabled: p.isEnabled,
            check_frequency: p.checkFrequency,
            api_model: p.apiModel || null,
          })),
        )
        .select();
    },
    capture: (res, ctx) => {
      ctx.brandPlatformId = row(res).id as string;
    },
  },
  {
    phase: "update",
    name: "updateBrandPlatform",
    source: "web/src/lib/actions/brand-platform.ts:104-109",
    client: "user",
    needs: ["brandPlatformId"],
    requires: ["brand_platforms.api_model"],
    run: (supabase, ctx) => {
      const id = ctx.brandPlatformId!;
      const payload: Record<string, unknown> = { is_enabled: false, check_frequency: 'monthly', api_model: 'claude-sonnet-5' };
      return supabase
        .from('brand_platforms')
        .update(payload)
        .eq('id', id)
        .select()
        .single();
    },
  },
  {
    phase: "read",
    name: "getBrandPlatforms",
    source: "web/src/lib/actions/brand-platform.ts:25-29",
    client: "user",
    needs: ["brandId"],
    run: (supabase, ctx) => {
      const brandId = ctx.brandId!;
      return supabase
        .from('brand_platforms')
        .select('*')
        .eq('brand_id', brandId)
        .order('created_at', { ascending: true });
    },
  },

  // ============================================================================================
  // Brand settings
  // ============================================================================================
  {
    phase: "update",
    name: "settings: updateBrand (name, industry, description, region, state)",
    source: "web/src/lib/actions/brand.ts:167-172",
    client: "user",
    needs: ["brandId"],
    requires: ["brands.description", "brands.state"],
    note: "Payload as updateBrand builds it for settings/page.tsx:160 (name → name+slug).",
    run: (supabase, ctx) => {
      const id = ctx.brandId!;
      const payload: Record<string, unknown> = {
        name: FIXTURE.brandName,
        slug: FIXTURE.slug,
        industry: 'Software',
        description: FIXTURE.description,
        region: FIXTURE.region,
        state: 'NY',
      };
      return supabase
        .from('brands')
        .update(payload)
        .eq('id', id)
        .select('*, brand_domains(*)')
        .single();
    },
  },
  {
    phase: "update",
    name: "setBrandShoppingMode: set the flag",
    source: "web/src/lib/actions/brand.ts:215-218",
    client: "user",
    needs: ["brandId"],
    requires: ["brands.shopping_mode_enabled"],
    run: (supabase, ctx) => {
      const brandId = ctx.brandId!;
      const enabled = true;
      return supabase
        .from('brands')
        .update({ shopping_mode_enabled: enabled })
        .eq('id', brandId);
    },
  },
  {
    phase: "read",
    name: "setBrandShoppingMode: every prompt of the brand via prompt_sets!inner",
    source: "web/src/lib/actions/brand.ts:226-229",
    client: "user",
    needs: ["brandId"],
    run: (supabase, ctx) => {
      const brandId = ctx.brandId!;
      return supabase
        .from('prompts')
        .select('id, platforms, prompt_sets!inner(brand_id)')
        .eq('prompt_sets.brand_id', brandId);
    },
  },
  {
    phase: "update",
    name: "setBrandShoppingMode: append chatgpt-shopping to a prompt's platforms",
    source: "web/src/lib/actions/brand.ts:240-243",
    client: "user",
    needs: ["promptId"],
    run: (supabase, ctx) => {
      const row = { id: ctx.promptId! };
      const next = [...FIXTURE.platforms, 'chatgpt-shopping'];
      return supabase
        .from('prompts')
        .update({ platforms: next })
        .eq('id', (row as { id: string }).id);
    },
  },
  {
    phase: "create",
    name: "setBrandShoppingMode: upsert brand_platforms ignoring duplicates on (brand_id, platform)",
    source: "web/src/lib/actions/brand.ts:256-261",
    client: "user",
    needs: ["brandId"],
    note: "POST with on_conflict=brand_id,platform and Prefer: resolution=ignore-duplicates.",
    run: (supabase, ctx) => {
      const brandId = ctx.brandId!;
      return supabase
        .from('brand_platforms')
        .upsert(
          { brand_id: brandId, platform: 'chatgpt-shopping', is_enabled: true },
          { onConflict: 'brand_id,platform', ignoreDuplicates: true },
        );
    },
  },
  {
    phase: "update",
    name: "setBrandActive: pause the brand, returning ids to detect a 0-row update",
    source: "web/src/lib/actions/brand.ts:289-293",
    client: "user",
    needs: ["brandId"],
    requires: ["brands.is_active boolean NOT NULL DEFAULT true"],
    run: (supabase, ctx) => {
      const brandId = ctx.brandId!;
      const isActive = false;
      return supabase
        .from('brands')
        .update({ is_active: isActive })
        .eq('id', brandId)
        .select('id');
    },
  },
  {
    phase: "update",
    name: "setBrandActive: resume the brand",
    source: "web/src/lib/actions/brand.ts:289-293",
    client: "user",
    needs: ["brandId"],
    requires: ["brands.is_active"],
    run: (supabase, ctx) => {
      const brandId = ctx.brandId!;
      const isActive = true;
      return supabase
        .from('brands')
        .update({ is_active: isActive })
        .eq('id', brandId)
        .select('id');
    },
  },
  {
    phase: "create",
    name: "addDomain (settings)",
    source: "web/src/lib/actions/brand-domain.ts:52-61",
    client: "user",
    needs: ["brandId"],
    produces: ["extraDomainId"],
    requires: ["brand_domains.country"],
    run: (supabase, ctx) => {
      const brandId = ctx.brandId!;
      const data = { domain: FIXTURE.extraDomain.domain, country: FIXTURE.extraDomain.country as string | undefined, isPrimary: false };
      return supabase
        .from('brand_domains')
        .insert({
          brand_id: brandId,
          domain: data.domain.trim(),
          country: data.country?.trim() || null,
          is_primary: data.isPrimary,
        })
        .select()
        .single();
    },
    capture: (res, ctx) => {
      ctx.extraDomainId = row(res).id as string;
    },
  },
  {
    phase: "update",
    name: "updateDomain: change the country",
    source: "web/src/lib/actions/brand-domain.ts:81-86",
    client: "user",
    needs: ["extraDomainId"],
    requires: ["brand_domains.country"],
    run: (supabase, ctx) => {
      const id = ctx.extraDomainId!;
      const payload: Record<string, unknown> = { country: 'AT' };
      return supabase
        .from('brand_domains')
        .update(payload)
        .eq('id', id)
        .select()
        .single();
    },
  },
  {
    phase: "read",
    name: "getBrands: the org's brands with brand_domains embedded",
    source: "web/src/lib/actions/brand.ts:43-47",
    client: "user",
    needs: ["organizationId"],
    run: (supabase, ctx) => {
      const organizationId = ctx.organizationId;
      return supabase
        .from('brands')
        .select('*, brand_domains(*)')
        .eq('organization_id', organizationId)
        .order('created_at', { ascending: false });
    },
  },
  {
    phase: "read",
    name: "getBrandById",
    source: "web/src/lib/actions/brand.ts:59-63",
    client: "user",
    needs: ["brandId"],
    run: (supabase, ctx) => {
      const id = ctx.brandId!;
      return supabase
        .from('brands')
        .select('*, brand_domains(*)')
        .eq('id', id)
        .single();
    },
  },

  // ============================================================================================
  // Topics
  // ============================================================================================
  {
    phase: "create",
    name: "createTopic (one, e.g. an accepted topic suggestion)",
    source: "web/src/lib/actions/topic.ts:74-78",
    client: "user",
    needs: ["brandId"],
    produces: ["extraTopicId"],
    requires: ["table topics"],
    run: (supabase, ctx) => {
      const brandId = ctx.brandId!;
      const name = ` ${FIXTURE.extraTopicName} `;
      return supabase
        .from('topics')
        .insert({ brand_id: brandId, name: name.trim() })
        .select()
        .single();
    },
    capture: (res, ctx) => {
      ctx.extraTopicId = row(res).id as string;
    },
  },
  {
    phase: "update",
    name: "updateTopic: rename",
    source: "web/src/lib/actions/topic.ts:87-92",
    client: "user",
    needs: ["extraTopicId"],
    requires: ["table topics"],
    run: (supabase, ctx) => {
      const topicId = ctx.extraTopicId!;
      const name = 'Integrations & APIs';
      return supabase
        .from('topics')
        .update({ name: name.trim() })
        .eq('id', topicId)
        .select()
        .single();
    },
  },
  {
    phase: "read",
    name: "getTopics: active topics",
    source: "web/src/lib/actions/topic.ts:38-43",
    client: "user",
    needs: ["brandId"],
    requires: ["table topics"],
    run: (supabase, ctx) => {
      const brandId = ctx.brandId!;
      return supabase
        .from('topics')
        .select('*')
        .eq('brand_id', brandId)
        .eq('is_active', true)
        .order('created_at', { ascending: true });
    },
  },
  {
    phase: "read",
    name: "getTopicById (maybeSingle)",
    source: "web/src/lib/actions/topic.ts:59-65",
    client: "user",
    needs: ["brandId", "topicId"],
    requires: ["table topics"],
    run: (supabase, ctx) => {
      const brandId = ctx.brandId!;
      const topicId = ctx.topicId!;
      return supabase
        .from('topics')
        .select('id, brand_id, name, is_active, created_at')
        .eq('brand_id', brandId)
        .eq('id', topicId)
        .eq('is_active', true)
        .maybeSingle();
    },
  },
  {
    phase: "read",
    name: "getPromptCountByTopic: prompts in the brand's sets with topic_id (head count)",
    source: "web/src/lib/actions/topic.ts:106-110",
    client: "user",
    needs: ["promptSetId", "topicId"],
    requires: ["prompts.topic_id"],
    note: "setIds come from `prompt_sets.select('id').eq('brand_id', brandId)` at topic.ts:101.",
    run: (supabase, ctx) => {
      const setIds = [ctx.promptSetId!];
      const topicId = ctx.topicId!;
      return supabase
        .from('prompts')
        .select('id', { count: 'exact', head: true })
        .in('prompt_set_id', setIds)
        .eq('topic_id', topicId);
    },
  },
  {
    phase: "read",
    name: "getTopicsOverview: active topics",
    source: "web/src/lib/actions/topic.ts:174-179",
    client: "user",
    needs: ["brandId"],
    requires: ["table topics"],
    run: (supabase, ctx) => {
      const brandId = ctx.brandId!;
      return supabase
        .from('topics')
        .select('id, name, created_at')
        .eq('brand_id', brandId)
        .eq('is_active', true)
        .order('created_at', { ascending: true });
    },
  },
  {
    phase: "read",
    name: "getTopicsOverview: the prompt roster, paged with two orders and range()",
    source: "web/src/lib/actions/topic.ts:198-205",
    client: "user",
    needs: ["promptSetId"],
    requires: ["prompts.topic_id"],
    note: "First page (from = 0, TOPIC_RESULTS_PAGE_SIZE = 1000).",
    run: (supabase, ctx) => {
      const brandSetIds = [ctx.promptSetId!];
      const from = 0;
      const TOPIC_RESULTS_PAGE_SIZE = 1000;
      return supabase
        .from('prompts')
        .select('id, topic_id')
        .in('prompt_set_id', brandSetIds)
        .eq('is_active', true)
        .order('created_at', { ascending: true })
        .order('id', { ascending: true })
        .range(from, from + TOPIC_RESULTS_PAGE_SIZE - 1);
    },
  },
  {
    phase: "read",
    name: "getTopicsOverview: rpc topics_overview_aggregates",
    source: "web/src/lib/actions/topic.ts:228-230",
    client: "user",
    needs: ["brandId"],
    requires: ["rpc topics_overview_aggregates(p_brand_id uuid) returning per-topic aggregates (see notes)"],
    run: (supabase, ctx) => {
      const brandId = ctx.brandId!;
      return supabase.rpc('topics_overview_aggregates', {
        p_brand_id: brandId,
      });
    },
  },

  // ============================================================================================
  // Prompts list and edits
  // ============================================================================================
  {
    phase: "read",
    name: "addPromptToBrand: the brand's earliest prompt set (maybeSingle)",
    source: "web/src/lib/actions/prompt.ts:477-483",
    client: "user",
    needs: ["brandId"],
    run: (supabase, ctx) => {
      const brandId = ctx.brandId!;
      return supabase
        .from('prompt_sets')
        .select('id')
        .eq('brand_id', brandId)
        .order('created_at', { ascending: true })
        .limit(1)
        .maybeSingle();
    },
  },
  {
    phase: "read",
    name: "addPromptToSet: the set's brand",
    source: "web/src/lib/actions/prompt.ts:387-391",
    client: "user",
    needs: ["promptSetId"],
    run: (supabase, ctx) => {
      const input = { promptSetId: ctx.promptSetId! };
      return supabase
        .from('prompt_sets')
        .select('brand_id')
        .eq('id', input.promptSetId)
        .single();
    },
  },
  {
    phase: "create",
    name: "addPromptToSet: insert one prompt with topic_id",
    source: "web/src/lib/actions/prompt.ts:431-444",
    client: "user",
    needs: ["promptSetId", "extraTopicId"],
    produces: ["extraPromptId"],
    requires: ["prompts.topic_id"],
    run: (supabase, ctx) => {
      const input = { promptSetId: ctx.promptSetId!, text: FIXTURE.extraPromptText, category: FIXTURE.extraTopicName as string | undefined };
      const topicId = ctx.extraTopicId!;
      const platforms = [...FIXTURE.platforms, 'chatgpt-shopping'];
      const brandRegion = FIXTURE.region;
      const filtered = { models: [...FIXTURE.models] };
      return supabase
        .from('prompts')
        .insert({
          prompt_set_id: input.promptSetId,
          text: input.text,
          category: input.category || null,
          topic_id: topicId,
          platforms,
          regions: [brandRegion],
          models: filtered.models,
          is_active: true,
        })
        .select()
        .single();
    },
    capture: (res, ctx) => {
      ctx.extraPromptId = row(res).id as string;
    },
  },
  {
    phase: "read",
    name: "updatePrompt: the prompt's brand via prompt_sets!inner (single)",
    source: "web/src/lib/actions/prompt.ts:320-324",
    client: "user",
    needs: ["extraPromptId"],
    note: "Embedded resource only, no column of prompts itself.",
    run: (supabase, ctx) => {
      const id = ctx.extraPromptId!;
      return supabase
        .from('prompts')
        .select('prompt_sets!inner(brand_id)')
        .eq('id', id)
        .single();
    },
  },
  {
    phase: "read",
    name: "updatePrompt: organization and shopping flag through prompt_sets!inner(brands!inner(...))",
    source: "web/src/lib/actions/prompt.ts:332-336",
    client: "user",
    needs: ["extraPromptId"],
    requires: ["brands.shopping_mode_enabled"],
    run: (supabase, ctx) => {
      const id = ctx.extraPromptId!;
      return supabase
        .from('prompts')
        .select('prompt_sets!inner(brands!inner(organization_id, shopping_mode_enabled))')
        .eq('id', id)
        .single();
    },
  },
  {
    phase: "update",
    name: "updatePrompt: text, category, topic_id, platforms, models",
    source: "web/src/lib/actions/prompt.ts:354-359",
    client: "user",
    needs: ["extraPromptId", "topicId", "topicName"],
    requires: ["prompts.topic_id"],
    run: (supabase, ctx) => {
      const id = ctx.extraPromptId!;
      const payload: Record<string, unknown> = {
        text: FIXTURE.extraPromptText,
        category: ctx.topicName!,
        topic_id: ctx.topicId!,
        platforms: [...FIXTURE.platforms],
        models: [...FIXTURE.models],
      };
      return supabase
        .from('prompts')
        .update(payload)
        .eq('id', id)
        .select()
        .single();
    },
  },
  {
    phase: "update",
    name: "setPromptWorkStatus",
    source: "web/src/lib/actions/prompt-workflow.ts:101-104",
    client: "user",
    needs: ["promptId"],
    requires: ["prompts.work_status text CHECK (work_status IS NULL OR work_status IN ('todo','in_progress','done'))"],
    run: (supabase, ctx) => {
      const promptId = ctx.promptId!;
      const status = 'in_progress';
      return supabase
        .from('prompts')
        .update({ work_status: status })
        .eq('id', promptId);
    },
  },
  {
    phase: "read",
    name: "getPromptWorkflow: the prompt's work_status (maybeSingle)",
    source: "web/src/lib/actions/prompt-workflow.ts:57",
    client: "user",
    needs: ["promptId"],
    requires: ["prompts.work_status"],
    run: (supabase, ctx) => {
      const promptId = ctx.promptId!;
      return supabase.from('prompts').select('work_status').eq('id', promptId).maybeSingle();
    },
  },
  {
    phase: "read",
    name: "getPromptSets: sets with prompts and each prompt's target-URL cited counts (nested embed)",
    source: "web/src/lib/actions/prompt.ts:130-134",
    client: "user",
    needs: ["brandId"],
    requires: ["table prompt_target_urls (id, prompt_id, url, label, added_by, created_at, cited_count, first_cited_at, last_cited_at)"],
    run: (supabase, ctx) => {
      const brandId = ctx.brandId!;
      return supabase
        .from('prompt_sets')
        .select('*, prompts(*, prompt_target_urls(cited_count))')
        .eq('brand_id', brandId)
        .order('created_at', { ascending: false });
    },
  },
  {
    phase: "read",
    name: "getBrandPrompts: active prompts of the brand's sets",
    source: "web/src/lib/actions/tracking.ts:1710-1715",
    client: "user",
    needs: ["promptSetId"],
    run: (supabase, ctx) => {
      const setIds = [ctx.promptSetId!];
      return supabase
        .from('prompts')
        .select('id, text, category, platforms')
        .in('prompt_set_id', setIds)
        .eq('is_active', true)
        .order('created_at', { ascending: false });
    },
  },
  {
    phase: "read",
    name: "getBrandsCardSummary: active prompts of several brands (.in on an !inner embed's column)",
    source: "web/src/lib/actions/brand.ts:328-332",
    client: "user",
    needs: ["brandId"],
    run: (supabase, ctx) => {
      const brandIds = [ctx.brandId!];
      return supabase
        .from('prompts')
        .select('id, prompt_sets!inner(brand_id)')
        .in('prompt_sets.brand_id', brandIds)
        .eq('is_active', true);
    },
  },
  {
    phase: "read",
    name: "daily cron: active brands",
    source: "server/src/server.js:137-140",
    client: "service",
    needs: [],
    requires: ["brands.is_active"],
    run: (supabaseAdmin) => {
      return supabaseAdmin
        .from('brands')
        .select('id, organization_id')
        .eq('is_active', true);
    },
  },
  {
    phase: "read",
    name: "daily cron: active prompt count of a brand (!inner, head)",
    source: "server/src/server.js:175-179",
    client: "service",
    needs: ["brandId"],
    run: (supabaseAdmin, ctx) => {
      const brand = { id: ctx.brandId! };
      return supabaseAdmin
        .from('prompts')
        .select('id, prompt_sets!inner(brand_id)', { count: 'exact', head: true })
        .eq('prompt_sets.brand_id', brand.id)
        .eq('is_active', true);
    },
  },
  {
    phase: "read",
    name: "assertPromptAccess: prompts with their organization through two !inner embeds",
    source: "server/src/lib/access.js:113-116",
    client: "service",
    needs: ["promptId", "extraPromptId"],
    run: (supabaseAdmin, ctx) => {
      const ids = [ctx.promptId!, ctx.extraPromptId!];
      return supabaseAdmin
        .from('prompts')
        .select('id, prompt_sets!inner(brands!inner(organization_id))')
        .in('id', ids);
    },
  },

  // ============================================================================================
  // Tracking: the worker writes results, the dashboard reads them (model_used)
  // ============================================================================================
  {
    phase: "read",
    name: "processTrackingJob: the brand with shopping flag and state",
    source: "server/src/workers/tracking-worker.js:162-166",
    client: "service",
    needs: ["brandId"],
    requires: ["brands.shopping_mode_enabled", "brands.state"],
    run: (supabaseAdmin, ctx) => {
      const brandId = ctx.brandId!;
      return supabaseAdmin
        .from('brands')
        .select('id, name, organization_id, shopping_mode_enabled, state')
        .eq('id', brandId)
        .single();
    },
  },
  {
    phase: "read",
    name: "processTrackingJob: active prompts of the brand's sets",
    source: "server/src/workers/tracking-worker.js:192-196",
    client: "service",
    needs: ["promptSetId"],
    run: (supabaseAdmin, ctx) => {
      const setIds = [ctx.promptSetId!];
      return supabaseAdmin
        .from('prompts')
        .select('*')
        .in('prompt_set_id', setIds)
        .eq('is_active', true);
    },
  },
  {
    phase: "read",
    name: "processTrackingJob: competitors",
    source: "server/src/workers/tracking-worker.js:249-252",
    client: "service",
    needs: ["brandId"],
    run: (supabaseAdmin, ctx) => {
      const brandId = ctx.brandId!;
      return supabaseAdmin
        .from('competitors')
        .select('id, name, domain')
        .eq('brand_id', brandId);
    },
  },
  {
    phase: "create",
    name: "insertResult: an API-model answer with model_used, returning id and created_at",
    source: "server/src/workers/tracking-worker.js:303-307 (row from :771-786)",
    client: "service",
    needs: ["brandId", "promptId"],
    produces: ["resultId", "resultCreatedAt"],
    requires: ["prompt_results.model_used text (answerwatch: model NOT NULL)", "prompt_results.mentioned_entity_count integer", "prompt_results.region nullable (Ansvisor sends null when a prompt has no regions)"],
    run: (supabaseAdmin, ctx) => {
      const row = {
        prompt_id: ctx.promptId!,
        brand_id: ctx.brandId!,
        platform: 'claude',
        response: 'For a startup, Acme Analytics is a strong pick; see https://acme-analytics.example/blog/startup-analytics.',
        citations: [{ url: FIXTURE.citationUrl, title: 'Startup analytics', startIndex: 0, endIndex: 10 }],
        mention_count: 1,
        citation_count: 1,
        sentiment: 'positive',
        visibility_score: 72,
        model_used: FIXTURE.modelUsed,
        region: FIXTURE.region,
        competitor_mentions: [{ name: 'Globex Insights', count: 1 }],
        mention_position: 1,
        mentioned_entity_count: 2,
      };
      return supabaseAdmin
        .from('prompt_results')
        .insert(row)
        .select('id, created_at')
        .single();
    },
    capture: (res, ctx) => {
      const r = row(res);
      ctx.resultId = r.id as string;
      ctx.resultCreatedAt = r.created_at as string;
    },
  },
  {
    phase: "create",
    name: "Cloro result handler: a scraper answer with shopping_cards, inline_products, search_queries",
    source: "server/src/lib/cloro-result-handler.js:53-75",
    client: "service",
    needs: ["brandId", "promptId"],
    requires: ["prompt_results.model_used", "prompt_results.shopping_cards jsonb NOT NULL DEFAULT '[]'", "prompt_results.inline_products jsonb NOT NULL DEFAULT '[]'", "prompt_results.mentioned_entity_count"],
    run: (supabaseAdmin, ctx) => {
      const promptId = ctx.promptId!;
      const brandId = ctx.brandId!;
      const scraperId = 'chatgpt-web';
      const region = FIXTURE.region as string | undefined;
      const aiResponse = {
        text: 'Popular picks: Globex Insights and Acme Analytics.',
        citations: [] as unknown[],
        model: 'chatgpt-web',
        shopping_cards: undefined as unknown[] | undefined,
        inline_products: undefined as unknown[] | undefined,
        search_queries: [{ query: 'best startup analytics', source_platform: 'chatgpt-web' }] as unknown,
      };
      const sentimentResult = { sentiment: 'neutral' };
      const metrics = { mentionCount: 1, citationCount: 0, visibilityScore: 40, competitorMentions: [{ name: 'Globex Insights', count: 1 }], mentionPosition: 2, mentionedEntityCount: 2 };
      return supabaseAdmin
        .from('prompt_results')
        .insert({
          prompt_id: promptId,
          brand_id: brandId,
          platform: scraperId,
          response: aiResponse.text,
          citations: aiResponse.citations,
          mention_count: metrics.mentionCount,
          citation_count: metrics.citationCount,
          sentiment: sentimentResult.sentiment,
          visibility_score: metrics.visibilityScore,
          model_used: aiResponse.model,
          region: region ?? null,
          competitor_mentions: metrics.competitorMentions,
          mention_position: metrics.mentionPosition,
          mentioned_entity_count: metrics.mentionedEntityCount,
          shopping_cards: aiResponse.shopping_cards ?? [],
          inline_products: aiResponse.inline_products ?? [],
          search_queries: Array.isArray(aiResponse.search_queries) ? aiResponse.search_queries : [],
        })
        .select('id, created_at')
        .single();
    },
  },
  {
    phase: "create",
    name: "persistCitationRows: rpc citation_url_ids with a jsonb array argument",
    source: "server/src/lib/citation-rows.js:98-100",
    client: "service",
    needs: [],
    produces: ["citationUrlId"],
    requires: ["table citation_urls", "rpc citation_url_ids(p_urls jsonb) RETURNS TABLE (id bigint, url text)"],
    run: (supabaseAdmin) => {
      const byUrl = new Map([[FIXTURE.citationUrl, { url: FIXTURE.citationUrl, domain: 'acme-analytics.example', title: 'Startup analytics' }]]);
      return supabaseAdmin.rpc('citation_url_ids', {
        p_urls: [...byUrl.values()].map(({ url, domain, title }) => ({ url, domain, title })),
      });
    },
    capture: (res, ctx) => {
      ctx.citationUrlId = row(res).id as number;
    },
  },
  {
    phase: "create",
    name: "persistCitationRows: upsert prompt_result_citations ignoring duplicates, returning positions",
    source: "server/src/lib/citation-rows.js:146-149",
    client: "service",
    needs: ["resultId", "resultCreatedAt", "brandId", "citationUrlId"],
    requires: ["table prompt_result_citations (PK prompt_result_id, position; url_id → citation_urls) — answerwatch's citations(result_id, position, url, …) is the nearest"],
    run: (supabaseAdmin, ctx) => {
      const rows = [
        {
          prompt_result_id: ctx.resultId!,
          position: 0,
          url_id: ctx.citationUrlId!,
          brand_id: ctx.brandId!,
          created_at: ctx.resultCreatedAt!,
        },
      ];
      return supabaseAdmin
        .from('prompt_result_citations')
        .upsert(rows, { onConflict: 'prompt_result_id,position', ignoreDuplicates: true })
        .select('position');
    },
  },
  {
    phase: "read",
    name: "processTrackingJob: results of this run so far (head count, gte created_at)",
    source: "server/src/workers/tracking-worker.js:846-850",
    client: "service",
    needs: ["brandId", "resultCreatedAt"],
    run: (supabaseAdmin, ctx) => {
      const brandId = ctx.brandId!;
      const trackingRunStartedAt = ctx.resultCreatedAt!;
      return supabaseAdmin
        .from('prompt_results')
        .select('id', { count: 'exact', head: true })
        .eq('brand_id', brandId)
        .gte('created_at', trackingRunStartedAt);
    },
  },
  {
    phase: "read",
    name: "getPromptResults: a page of results with exact count, filtered by model_used",
    source: "web/src/lib/actions/tracking.ts:336-347, 390-394 (model filter from applyModelFilter :51)",
    client: "user",
    needs: ["brandId", "promptId"],
    requires: ["prompt_results.model_used"],
    note: "buildResultsQuery with selectOpts {count:'exact'} and opts {model: 'claude-sonnet-5', region: 'US', promptId}; applyModelFilter takes the single-slug branch (.eq('model_used', …)); page offset 0, limit 50.",
    run: (supabase, ctx) => {
      const brandId = ctx.brandId!;
      const opts = { model: FIXTURE.modelUsed, region: FIXTURE.region, promptId: ctx.promptId! };
      const offset = 0;
      const limit = 50;
      const base = supabase.from('prompt_results');
      let query = base.select('*', { count: 'exact' })
        .eq('brand_id', brandId)
        .neq('platform', 'chatgpt-shopping');
      query = query.eq('model_used', opts.model);
      if (opts?.region) query = query.eq('region', opts.region);
      if (opts?.promptId) query = query.eq('prompt_id', opts.promptId);
      return query.order('created_at', { ascending: false }).range(offset, offset + limit - 1);
    },
  },
  {
    phase: "read",
    name: "getPromptResults: the page's prompts",
    source: "web/src/lib/actions/tracking.ts:403",
    client: "user",
    needs: ["promptId"],
    requires: ["prompts.topic_id"],
    run: (supabase, ctx) => {
      const promptIds = [ctx.promptId!];
      return supabase.from('prompts').select('id, text, category, topic_id').in('id', promptIds);
    },
  },
  {
    phase: "read",
    name: "getPromptResults: the prompts' topics",
    source: "web/src/lib/actions/tracking.ts:413",
    client: "user",
    needs: ["topicId"],
    requires: ["table topics"],
    run: (supabase, ctx) => {
      const topicIds = [ctx.topicId!];
      return supabase.from('topics').select('id, name').in('id', topicIds);
    },
  },
  {
    phase: "read",
    name: "getPromptResultById (neq platform, single)",
    source: "web/src/lib/actions/tracking.ts:970-975",
    client: "user",
    needs: ["resultId"],
    run: (supabase, ctx) => {
      const resultId = ctx.resultId!;
      return supabase
        .from('prompt_results')
        .select('*')
        .eq('id', resultId)
        .neq('platform', 'chatgpt-shopping')
        .single();
    },
  },
  {
    phase: "read",
    name: "getPromptDetail: the prompt",
    source: "web/src/lib/actions/tracking.ts:1019-1023",
    client: "user",
    needs: ["promptId"],
    requires: ["prompts.topic_id"],
    run: (supabase, ctx) => {
      const promptId = ctx.promptId!;
      return supabase
        .from('prompts')
        .select('id, prompt_set_id, text, category, topic_id, is_active, created_at')
        .eq('id', promptId)
        .single();
    },
  },
  {
    phase: "read",
    name: "getPromptDetail: the prompt's latest run (order + limit 1)",
    source: "web/src/lib/actions/tracking.ts:1045-1051",
    client: "user",
    needs: ["promptId"],
    run: (supabase, ctx) => {
      const promptId = ctx.promptId!;
      return supabase
        .from('prompt_results')
        .select('created_at')
        .eq('prompt_id', promptId)
        .neq('platform', 'chatgpt-shopping')
        .order('created_at', { ascending: false })
        .limit(1);
    },
  },
  {
    phase: "read",
    name: "getPromptDetail: results in a date window",
    source: "web/src/lib/actions/tracking.ts:1077-1087",
    client: "user",
    needs: ["promptId"],
    note: "opts {dateFrom: 7 days ago, dateTo: none}, limit default 500.",
    run: (supabase, ctx) => {
      const promptId = ctx.promptId!;
      const opts = { dateFrom: new Date(Date.now() - 7 * 86400000).toISOString(), limit: undefined as number | undefined };
      let resultQuery = supabase
        .from('prompt_results')
        .select('*')
        .eq('prompt_id', promptId)
        .neq('platform', 'chatgpt-shopping');
      if (opts?.dateFrom) resultQuery = resultQuery.gte('created_at', opts.dateFrom);
      return resultQuery
        .order('created_at', { ascending: false })
        .limit(opts?.limit ?? 500);
    },
  },
  {
    phase: "read",
    name: "getBrandResultsTotal (head count, neq platform)",
    source: "web/src/lib/actions/tracking.ts:679-683",
    client: "user",
    needs: ["brandId"],
    run: (supabase, ctx) => {
      const brandId = ctx.brandId!;
      return supabase
        .from('prompt_results')
        .select('id', { count: 'exact', head: true })
        .eq('brand_id', brandId)
        .neq('platform', 'chatgpt-shopping');
    },
  },
  {
    phase: "read",
    name: "brandHasCitations: neq on a jsonb column against '[]'",
    source: "web/src/lib/actions/citations.ts:686-693",
    client: "user",
    needs: ["brandId"],
    note: "citations=neq.[] compares the JSON value, not its text.",
    run: (supabase, ctx) => {
      const brandId = ctx.brandId!;
      return supabase
        .from('prompt_results')
        .select('id')
        .eq('brand_id', brandId)
        .neq('platform', 'chatgpt-shopping')
        .neq('citations', '[]')
        .order('created_at', { ascending: false })
        .limit(1);
    },
  },
  {
    phase: "read",
    name: "citations scanFilteredResults: model_used select string, .in('model_used', …) family filter, paged",
    source: "web/src/lib/actions/citations.ts:171-201 (select string from :827, model filter from applyModelFilter :135)",
    client: "user",
    needs: ["brandId", "promptId"],
    requires: ["prompt_results.model_used"],
    note: "filters {platforms: ['claude-sonnet-5,chatgpt-web'] (comma family → .in), regions: ['US'], promptIds}; first page.",
    run: (supabase, ctx) => {
      const brandId = ctx.brandId!;
      const select = 'id, prompt_id, platform, model_used, region, created_at, sentiment, mention_count, citations';
      const from = new Date(Date.now() - 30 * 86400000).toISOString();
      const list = ['claude-sonnet-5', 'chatgpt-web'];
      const filters = { regions: [FIXTURE.region as string], promptIds: [ctx.promptId!] };
      const offset = 0;
      const CITATIONS_SCAN_PAGE_SIZE = 1000;
      let query = supabase
        .from('prompt_results')
        .select(select)
        .eq('brand_id', brandId)
        .neq('platform', 'chatgpt-shopping');
      if (from) query = query.gte('created_at', from);
      query = query.in('model_used', list);
      if (filters.regions && filters.regions.length > 0) {
        query = query.in('region', filters.regions);
      }
      if (filters.promptIds && filters.promptIds.length > 0) {
        query = query.in('prompt_id', filters.promptIds);
      }
      return query
        .order('created_at', { ascending: true })
        .order('id', { ascending: true })
        .range(offset, offset + CITATIONS_SCAN_PAGE_SIZE - 1);
    },
  },
  {
    phase: "read",
    name: "topic filter with the zero-uuid sentinel (.in with a uuid that matches nothing)",
    source: "web/src/lib/actions/tracking.ts:336-339, 349-359",
    client: "user",
    needs: ["brandId"],
    note: "buildResultsQuery when the topic has no prompts.",
    run: (supabase, ctx) => {
      const brandId = ctx.brandId!;
      const topicPromptIds: string[] = [];
      const base = supabase.from('prompt_results');
      let query = base.select('*')
        .eq('brand_id', brandId)
        .neq('platform', 'chatgpt-shopping');
      query = query.in(
        'prompt_id',
        topicPromptIds.length > 0 ? topicPromptIds : [ZERO_UUID],
      );
      return query;
    },
  },
  {
    phase: "read",
    name: "getBrandsCardSummary: 14 days of results for several brands",
    source: "web/src/lib/actions/brand.ts:323-327",
    client: "user",
    needs: ["brandId"],
    run: (supabase, ctx) => {
      const brandIds = [ctx.brandId!];
      const since14d = new Date(Date.now() - 14 * 86400000).toISOString();
      return supabase
        .from('prompt_results')
        .select('brand_id, visibility_score, mention_count, created_at')
        .in('brand_id', brandIds)
        .gte('created_at', since14d);
    },
  },
  {
    phase: "read",
    name: "getBrandsCardSummary: 7 days of AI traffic",
    source: "web/src/lib/actions/brand.ts:333-337",
    client: "user",
    needs: ["brandId"],
    run: (supabase, ctx) => {
      const brandIds = [ctx.brandId!];
      const now = Date.now();
      return supabase
        .from('ai_traffic_logs')
        .select('brand_id, created_at')
        .in('brand_id', brandIds)
        .gte('created_at', new Date(now - 7 * 86400000).toISOString());
    },
  },
  {
    phase: "read",
    name: "Daily Pulse: platforms with a mention or citation (.or of two gt filters)",
    source: "server/src/lib/pulse/metrics.js:222-229",
    client: "service",
    needs: ["brandId"],
    run: (supabaseAdmin, ctx) => {
      const brandId = ctx.brandId!;
      const from = new Date(Date.now() - 86400000);
      return supabaseAdmin
        .from('prompt_results')
        .select('platform')
        .eq('brand_id', brandId)
        .neq('platform', 'chatgpt-shopping')
        .gte('created_at', from.toISOString())
        .or('mention_count.gt.0,citation_count.gt.0')
        .limit(1000);
    },
  },
  {
    phase: "read",
    name: "Daily Pulse: earlier visible answers on a platform (head count + .or)",
    source: "server/src/lib/pulse/metrics.js:233-239",
    client: "service",
    needs: ["brandId"],
    run: (supabaseAdmin, ctx) => {
      const brandId = ctx.brandId!;
      const platform = 'claude';
      const from = new Date(Date.now() - 86400000);
      return supabaseAdmin
        .from('prompt_results')
        .select('id', { count: 'exact', head: true })
        .eq('brand_id', brandId)
        .eq('platform', platform)
        .lt('created_at', from.toISOString())
        .or('mention_count.gt.0,citation_count.gt.0');
    },
  },
  {
    phase: "read",
    name: "backfill-citations: keyset page with .or(created_at.gt.X,and(created_at.eq.X,id.gt.Y))",
    source: "server/src/scripts/backfill-citations.js:64-86",
    client: "service",
    needs: ["resultId", "resultCreatedAt"],
    note: "Timestamps go into the .or string unquoted (e.g. 2026-08-22T10:00:00.123456+00:00 as Postgres returns them).",
    run: (supabaseAdmin, ctx) => {
      const BATCH = 200;
      const cursor = { createdAt: ctx.resultCreatedAt!, id: ctx.resultId! };
      let query = supabaseAdmin
        .from('prompt_results')
        // Deliberately without `citations`: the jsonb is the expensive half of the
        // row, and on a repair run almost every answer in the page is skipped. It
        // is fetched afterwards, only for the answers that still need writing.
        .select('id, brand_id, created_at')
        .not('citations', 'is', null)
        .order('created_at', { ascending: true })
        .order('id', { ascending: true })
        .limit(BATCH);
      if (cursor) {
        // `or` expresses the keyset condition: strictly later timestamp, or the
        // same timestamp and a later id.
        query = query.or(
          `created_at.gt.${cursor.createdAt},and(created_at.eq.${cursor.createdAt},id.gt.${cursor.id})`,
        );
      }
      return query;
    },
  },
  {
    phase: "read",
    name: "tracking route: results page with exact count",
    source: "server/src/routes/tracking.js:292-299",
    client: "service",
    needs: ["brandId", "promptId"],
    run: (supabaseAdmin, ctx) => {
      const brandId = ctx.brandId!;
      const promptId = ctx.promptId!;
      const offset = 0;
      const limit = 20;
      let query = supabaseAdmin
        .from('prompt_results')
        .select('*', { count: 'exact' })
        .eq('brand_id', brandId)
        .order('created_at', { ascending: false })
        .range(offset, offset + limit - 1);
      if (promptId) query = query.eq('prompt_id', promptId);
      return query;
    },
  },
  {
    phase: "read",
    name: "tracking status: enabled platforms with api_model",
    source: "server/src/routes/tracking.js:321-325",
    client: "service",
    needs: ["brandId"],
    requires: ["brand_platforms.api_model"],
    run: (supabaseAdmin, ctx) => {
      const brandId = ctx.brandId!;
      return supabaseAdmin
        .from('brand_platforms')
        .select('id, platform, is_enabled, last_checked_at, check_frequency, api_model')
        .eq('brand_id', brandId)
        .eq('is_enabled', true);
    },
  },
  {
    phase: "create",
    name: "traffic beacon: insert an AI-referred visit",
    source: "server/src/routes/traffic.js:123-133",
    client: "service",
    needs: ["brandId"],
    requires: ["ai_traffic_logs.referrer, user_agent, ip_address (answerwatch: referrer_host, user_agent_family, visitor_hash NOT NULL, path NOT NULL)"],
    run: (supabaseAdmin, ctx) => {
      const brand = { id: ctx.brandId! };
      const body = { u: 'https://acme-analytics.example/pricing', r: 'https://chatgpt.com/', s: 'chatgpt', a: 'Mozilla/5.0', l: 'en-US', d: '1440x900' };
      const sourcePlatform = body.s;
      const ip = '203.0.113.7';
      const country = null;
      return supabaseAdmin.from('ai_traffic_logs').insert({
        brand_id: brand.id,
        url: (body.u || '').slice(0, 2048),
        referrer: (body.r || '').slice(0, 2048) || null,
        source_platform: sourcePlatform,
        user_agent: (body.a || '').slice(0, 512) || null,
        ip_address: ip || null,
        country,
        language: (body.l || '').slice(0, 16) || null,
        screen: (body.d || '').slice(0, 16) || null,
      });
    },
  },
  {
    phase: "read",
    name: "getTrafficLogs: page with exact count and escaped ilike",
    source: "web/src/lib/actions/traffic.ts:307-328",
    client: "user",
    needs: ["brandId"],
    note: "opts {platform: 'chatgpt', search: '/pricing'}, offset 0, limit 25.",
    run: (supabase, ctx) => {
      const brandId = ctx.brandId!;
      const platform = 'chatgpt';
      const search = '/pricing';
      const offset = 0;
      const limit = 25;
      let query = supabase
        .from('ai_traffic_logs')
        .select('*', { count: 'exact' })
        .eq('brand_id', brandId);
      if (platform) {
        query = query.eq('source_platform', platform);
      }
      if (search) {
        // Escape \, % and _ for ILIKE to treat them as literals, not wildcards
        const escaped = search.replace(/\\/g, '\\\\').replace(/%/g, '\\%').replace(/_/g, '\\_');
        query = query.ilike('url', `%${escaped}%`);
      }
      return query
        .order('created_at', { ascending: false })
        .range(offset, offset + limit - 1);
    },
  },

  // ============================================================================================
  // Content opportunities (server/src — service role)
  // ============================================================================================
  {
    phase: "create",
    name: "content worker: insert generated opportunities (no select)",
    source: "server/src/workers/content-worker.js:245-275",
    client: "service",
    needs: ["brandId", "promptId"],
    requires: ["table content_opportunities (answerwatch's nearest is suggestions)"],
    run: (supabaseAdmin, ctx) => {
      const brandId = ctx.brandId!;
      const rows = [
        {
          brand_id: brandId,
          prompt_id: ctx.promptId!,
          title: 'Publish a startup pricing comparison',
          description: 'Globex is cited for pricing questions; Acme has no comparison page.',
          type: 'owned',
          impact: 'high',
          opportunity_score: 82.5,
          status: 'new',
          source_data: {
            promptText: FIXTURE.promptText,
            estAiVolume: 1200,
            visibilityScore: 40,
            competitorGap: 35,
            intent: 'commercial',
            keywords: ['startup analytics pricing'],
            competitorsCited: ['Globex Insights'],
          },
        },
      ];
      return supabaseAdmin.from('content_opportunities').insert(rows);
    },
  },
  {
    phase: "read",
    name: "opportunity generator: pending opportunities (dedupe)",
    source: "server/src/lib/opportunity-generator.js:179-183",
    client: "service",
    needs: ["brandId"],
    requires: ["table content_opportunities"],
    run: (supabaseAdmin, ctx) => {
      const brandId = ctx.brandId!;
      return supabaseAdmin
        .from('content_opportunities')
        .select('prompt_id, title')
        .eq('brand_id', brandId)
        .eq('status', 'new');
    },
  },
  {
    phase: "read",
    name: "list opportunities: count exact + .or(title.ilike,description.ilike) + order + range",
    source: "server/src/routes/content.js:135-171",
    client: "service",
    needs: ["brandId"],
    produces: ["opportunityId"],
    requires: ["table content_opportunities"],
    note: "Query {status: 'new', q: 'pricing', sort: 'score', limit 50, offset 0}; applyFilters takes the status and q branches.",
    run: (supabaseAdmin, ctx) => {
      const brandId = ctx.brandId!;
      const { status, q, limit = 50, offset = 0 } = { status: 'new', q: 'pricing' } as { status: string; q: string; limit?: number; offset?: number };
      const search = q ? String(q).replace(/[,()]/g, ' ') : null;
      const applyFilters = <Q extends { eq(column: string, value: unknown): Q; or(filters: string): Q }>(query: Q) => {
        let filteredQuery = query.eq('brand_id', brandId);
        if (status) {
          filteredQuery = filteredQuery.eq('status', status);
        }
        if (q) {
          filteredQuery = filteredQuery.or(`title.ilike.%${search}%,description.ilike.%${search}%`);
        }
        return filteredQuery;
      };
      let dataQuery = supabaseAdmin.from('content_opportunities').select('*', { count: 'exact' });
      dataQuery = applyFilters(dataQuery);
      dataQuery = dataQuery.order('opportunity_score', {
        ascending: false,
      });
      dataQuery = dataQuery.range(Number(offset), Number(offset) + Number(limit) - 1);
      return dataQuery;
    },
    capture: (res, ctx) => {
      ctx.opportunityId = row(res).id as string;
    },
  },
  {
    phase: "read",
    name: "list opportunities: rpc content_opportunity_aggregates",
    source: "server/src/routes/content.js:173-179",
    client: "service",
    needs: ["brandId"],
    requires: ["rpc content_opportunity_aggregates(p_brand_id, p_status, p_impact, p_type, p_q) RETURNS TABLE (avg_score, high_impact_count, sent_count)"],
    run: (supabaseAdmin, ctx) => {
      const brandId = ctx.brandId!;
      const status = 'new';
      const search = 'pricing';
      return supabaseAdmin.rpc('content_opportunity_aggregates', {
        p_brand_id: brandId,
        p_status: status ? String(status) : null,
        p_impact: null,
        p_type: null,
        p_q: search,
      });
    },
  },
  {
    phase: "read",
    name: "assertOpportunityAccess: one opportunity (single)",
    source: "server/src/lib/access.js:90-94",
    client: "service",
    needs: ["opportunityId"],
    requires: ["table content_opportunities"],
    run: (supabaseAdmin, ctx) => {
      const id = ctx.opportunityId!;
      return supabaseAdmin
        .from('content_opportunities')
        .select('*')
        .eq('id', id)
        .single();
    },
  },
  {
    phase: "update",
    name: "PATCH /api/content/:id/status: update and return the row",
    source: "server/src/routes/content.js:448-453",
    client: "service",
    needs: ["opportunityId"],
    requires: ["table content_opportunities (status new|sent|in_progress|done|dismissed)"],
    run: (supabaseAdmin, ctx) => {
      const id = ctx.opportunityId!;
      const status = 'in_progress';
      return supabaseAdmin
        .from('content_opportunities')
        .update({ status, updated_at: new Date().toISOString() })
        .eq('id', id)
        .select()
        .single();
    },
  },
  {
    phase: "update",
    name: "send-webhook: mark sent with webhook_sent_at and a jsonb webhook_response",
    source: "server/src/routes/content.js:551-562",
    client: "service",
    needs: ["opportunityId"],
    requires: ["content_opportunities.webhook_sent_at, webhook_response jsonb"],
    run: (supabaseAdmin, ctx) => {
      const id = ctx.opportunityId!;
      const webhookRes = { status: 200 };
      const responseBody = '{"ok":true}';
      return supabaseAdmin
        .from('content_opportunities')
        .update({
          status: 'sent',
          webhook_sent_at: new Date().toISOString(),
          webhook_response: {
            status: webhookRes.status,
            body: responseBody.slice(0, 1000),
          },
          updated_at: new Date().toISOString(),
        })
        .eq('id', id);
    },
  },
  {
    phase: "update",
    name: "brief: store the generated brief (jsonb)",
    source: "server/src/routes/content.js:785-788",
    client: "service",
    needs: ["opportunityId"],
    requires: ["content_opportunities.brief jsonb"],
    run: (supabaseAdmin, ctx) => {
      const opportunityId = ctx.opportunityId!;
      const generatedAt = new Date().toISOString();
      const brief = { suggestedTitle: 'Startup analytics pricing, compared', contentType: 'comparison-page', targetWordCount: 1800, outline: [], targetKeywords: [], competitorInsights: '', callToAction: '' };
      return supabaseAdmin
        .from('content_opportunities')
        .update({ brief, updated_at: generatedAt })
        .eq('id', opportunityId);
    },
  },
  {
    phase: "read",
    name: "assertOpportunitiesAccess: several opportunities by id",
    source: "server/src/lib/access.js:61-64",
    client: "service",
    needs: ["opportunityId"],
    requires: ["table content_opportunities"],
    run: (supabaseAdmin, ctx) => {
      const ids = [ctx.opportunityId!];
      return supabaseAdmin
        .from('content_opportunities')
        .select('id, brand_id')
        .in('id', ids);
    },
  },
  {
    phase: "update",
    name: "bulk status: update several, returning ids",
    source: "server/src/routes/content.js:240-244",
    client: "service",
    needs: ["opportunityId"],
    requires: ["table content_opportunities"],
    run: (supabaseAdmin, ctx) => {
      const ids = [ctx.opportunityId!];
      const status = 'done';
      return supabaseAdmin
        .from('content_opportunities')
        .update({ status, updated_at: new Date().toISOString() })
        .in('id', ids)
        .select('id');
    },
  },

  // ============================================================================================
  // Prompt suggestions (server/src — service role; web reads/accepts with the user client)
  // ============================================================================================
  {
    phase: "read",
    name: "findOrCreateTopic: topic by case-insensitive name (.ilike without wildcards)",
    source: "server/src/routes/prompts.js:299-305",
    client: "service",
    needs: ["brandId"],
    requires: ["table topics"],
    run: (supabaseAdmin, ctx) => {
      const brandId = ctx.brandId!;
      const topicName = 'pricing';
      return supabaseAdmin
        .from('topics')
        .select('id')
        .eq('brand_id', brandId)
        .ilike('name', topicName)
        .limit(1)
        .maybeSingle();
    },
  },
  {
    phase: "create",
    name: "findOrCreateTopic: insert topic with is_active",
    source: "server/src/routes/prompts.js:307-311",
    client: "service",
    needs: ["brandId"],
    requires: ["table topics"],
    run: (supabaseAdmin, ctx) => {
      const brandId = ctx.brandId!;
      const topicName = 'Onboarding';
      return supabaseAdmin
        .from('topics')
        .insert({ brand_id: brandId, name: topicName, is_active: true })
        .select('id')
        .single();
    },
  },
  {
    phase: "delete",
    name: "suggestions refresh: drop the brand's pending suggestions",
    source: "server/src/routes/prompts.js:326-330",
    client: "service",
    needs: ["brandId"],
    requires: ["table prompt_suggestions"],
    run: (supabaseAdmin, ctx) => {
      const req = { params: { brandId: ctx.brandId! } };
      return supabaseAdmin
        .from('prompt_suggestions')
        .delete()
        .eq('brand_id', req.params.brandId)
        .eq('status', 'new');
    },
  },
  {
    phase: "create",
    name: "suggestions refresh: insert suggestions with source_data and expires_at",
    source: "server/src/routes/prompts.js:394-397 (rows from :356-391)",
    client: "service",
    needs: ["brandId", "topicId", "topicName"],
    produces: ["suggestionId"],
    requires: ["table prompt_suggestions (source llm|heuristic|gsc|ga, status new|added|dismissed, expires_at default now()+48h)"],
    run: (supabaseAdmin, ctx) => {
      const expiresAt = new Date(Date.now() + 48 * 60 * 60 * 1000).toISOString();
      const rows = [
        {
          brand_id: ctx.brandId!,
          suggested_text: 'Which analytics tool is cheapest for a five-person startup?',
          topic_name: ctx.topicName!,
          topic_id: ctx.topicId!,
          reason: 'Pricing questions cite competitors but not Acme.',
          est_volume: Math.min(900, 10_000_000),
          source: 'gsc',
          source_data: { query: 'cheapest analytics startup', impressions: 340, clicks: 12, avgPosition: 8.4, badge: 'rising', competitionIndex: null },
          status: 'new',
          expires_at: expiresAt,
        },
      ];
      return supabaseAdmin
        .from('prompt_suggestions')
        .insert(rows)
        .select();
    },
    capture: (res, ctx) => {
      ctx.suggestionId = row(res).id as string;
    },
  },
  {
    phase: "read",
    name: "GET suggestions: pending, newest first",
    source: "server/src/routes/prompts.js:412-417",
    client: "service",
    needs: ["brandId"],
    requires: ["table prompt_suggestions"],
    run: (supabaseAdmin, ctx) => {
      const req = { params: { brandId: ctx.brandId! } };
      return supabaseAdmin
        .from('prompt_suggestions')
        .select('*')
        .eq('brand_id', req.params.brandId)
        .eq('status', 'new')
        .order('generated_at', { ascending: false });
    },
  },
  {
    phase: "read",
    name: "acceptSuggestion: the pending suggestion (user client, single)",
    source: "web/src/lib/actions/prompt-suggestions.ts:130-135",
    client: "user",
    needs: ["suggestionId"],
    requires: ["table prompt_suggestions with member-select policy"],
    run: (supabase, ctx) => {
      const suggestionId = ctx.suggestionId!;
      return supabase
        .from('prompt_suggestions')
        .select('id, brand_id, suggested_text, topic_name')
        .eq('id', suggestionId)
        .eq('status', 'new')
        .single();
    },
  },
  {
    phase: "read",
    name: "acceptSuggestion: platform/model defaults from the newest active prompt (maybeSingle)",
    source: "web/src/lib/actions/prompt-suggestions.ts:151-158",
    client: "user",
    needs: ["promptSetId"],
    run: (supabase, ctx) => {
      const ps = { id: ctx.promptSetId! };
      return supabase
        .from('prompts')
        .select('platforms, models')
        .eq('prompt_set_id', ps.id)
        .eq('is_active', true)
        .order('created_at', { ascending: false })
        .limit(1)
        .maybeSingle();
    },
  },
  {
    phase: "update",
    name: "accept ack: status added + added_prompt_id",
    source: "server/src/routes/prompts.js:469-476",
    client: "service",
    needs: ["suggestionId", "extraPromptId"],
    requires: ["table prompt_suggestions"],
    run: (supabaseAdmin, ctx) => {
      const req = { params: { id: ctx.suggestionId! } };
      const promptId = ctx.extraPromptId!;
      return supabaseAdmin
        .from('prompt_suggestions')
        .update({
          status: 'added',
          added_prompt_id: promptId,
          updated_at: new Date().toISOString(),
        })
        .eq('id', req.params.id);
    },
  },

  // ============================================================================================
  // Deletes
  // ============================================================================================
  {
    phase: "delete",
    name: "content worker: drop pending opportunities (.in on status)",
    source: "server/src/workers/content-worker.js:239-243",
    client: "service",
    needs: ["brandId"],
    requires: ["table content_opportunities"],
    run: (supabaseAdmin, ctx) => {
      const brandId = ctx.brandId!;
      return supabaseAdmin
        .from('content_opportunities')
        .delete()
        .eq('brand_id', brandId)
        .in('status', ['new']);
    },
  },
  {
    phase: "delete",
    name: "bulk delete opportunities, returning ids",
    source: "server/src/routes/content.js:280-284",
    client: "service",
    needs: ["opportunityId"],
    requires: ["table content_opportunities"],
    run: (supabaseAdmin, ctx) => {
      const ids = [ctx.opportunityId!];
      return supabaseAdmin
        .from('content_opportunities')
        .delete()
        .in('id', ids)
        .select('id');
    },
  },
  {
    phase: "delete",
    name: "removeDomain: delete returning brand_id (maybeSingle)",
    source: "web/src/lib/actions/brand-domain.ts:101-106",
    client: "user",
    needs: ["extraDomainId"],
    run: (supabase, ctx) => {
      const id = ctx.extraDomainId!;
      return supabase
        .from('brand_domains')
        .delete()
        .eq('id', id)
        .select('brand_id')
        .maybeSingle();
    },
  },
  {
    phase: "delete",
    name: "deleteCompetitor",
    source: "web/src/lib/actions/competitor.ts:57",
    client: "user",
    needs: ["competitorId"],
    run: (supabase, ctx) => {
      const id = ctx.competitorId!;
      return supabase.from('competitors').delete().eq('id', id);
    },
  },
  {
    phase: "read",
    name: "deleteTopic: the topic's name and brand",
    source: "web/src/lib/actions/topic.ts:382-386",
    client: "user",
    needs: ["extraTopicId"],
    requires: ["table topics"],
    run: (supabase, ctx) => {
      const topicId = ctx.extraTopicId!;
      return supabase
        .from('topics')
        .select('name, brand_id')
        .eq('id', topicId)
        .single();
    },
  },
  {
    phase: "update",
    name: "deleteTopic: clear category on the brand's prompts that use the topic's name",
    source: "web/src/lib/actions/topic.ts:398-402",
    client: "user",
    needs: ["promptSetId"],
    note: "setIds from `prompt_sets.select('id').eq('brand_id', topic.brand_id)` at topic.ts:391-394.",
    run: (supabase, ctx) => {
      const setIds = [ctx.promptSetId!];
      const topic = { name: 'Integrations & APIs' };
      return supabase
        .from('prompts')
        .update({ category: null })
        .in('prompt_set_id', setIds)
        .eq('category', topic.name as string);
    },
  },
  {
    phase: "delete",
    name: "deleteTopic (prompts.topic_id goes NULL by ON DELETE SET NULL)",
    source: "web/src/lib/actions/topic.ts:406",
    client: "user",
    needs: ["extraTopicId"],
    requires: ["table topics", "prompts.topic_id REFERENCES topics ON DELETE SET NULL"],
    run: (supabase, ctx) => {
      const topicId = ctx.extraTopicId!;
      return supabase.from('topics').delete().eq('id', topicId);
    },
  },
  {
    phase: "delete",
    name: "deletePrompt",
    source: "web/src/lib/actions/prompt.ts:515",
    client: "user",
    needs: ["extraPromptId"],
    note: "prompt_suggestions.added_prompt_id is ON DELETE SET NULL in Ansvisor.",
    run: (supabase, ctx) => {
      const id = ctx.extraPromptId!;
      return supabase.from('prompts').delete().eq('id', id);
    },
  },
  {
    phase: "delete",
    name: "savePromptSet re-save: delete the prompts of the existing sets",
    source: "web/src/lib/actions/prompt.ts:228-229",
    client: "user",
    needs: ["promptSetId"],
    run: (supabase, ctx) => {
      const existing = [{ id: ctx.promptSetId! }];
      const existingIds = existing.map((ps) => ps.id);
      return supabase.from('prompts').delete().in('prompt_set_id', existingIds);
    },
  },
  {
    phase: "delete",
    name: "savePromptSet re-save: delete the brand's prompt sets",
    source: "web/src/lib/actions/prompt.ts:230",
    client: "user",
    needs: ["brandId"],
    run: (supabase, ctx) => {
      const input = { brandId: ctx.brandId! };
      return supabase.from('prompt_sets').delete().eq('brand_id', input.brandId);
    },
  },
  {
    phase: "delete",
    name: "deletePromptSet (by id; nothing left after the re-save delete, still a valid 0-row delete)",
    source: "web/src/lib/actions/prompt.ts:522",
    client: "user",
    needs: ["promptSetId"],
    run: (supabase, ctx) => {
      const id = ctx.promptSetId!;
      return supabase.from('prompt_sets').delete().eq('id', id);
    },
  },
  {
    phase: "delete",
    name: "deleteBrand (everything brand-owned cascades)",
    source: "web/src/lib/actions/brand.ts:186",
    client: "user",
    needs: ["brandId"],
    run: (supabase, ctx) => {
      const id = ctx.brandId!;
      return supabase.from('brands').delete().eq('id', id);
    },
  },
];

/** Every chain, in the order to run them (step = index + 1). */
export const CHAINS: Chain[] = chains.map((c, i) => ({ ...c, step: i + 1 }));

/** Table names Ansvisor uses that answerwatch does not have under that name, and the nearest answerwatch table (null: none). */
export const TABLE_ALIASES: Record<string, string | null> = {
  content_opportunities: "suggestions",
  prompt_result_citations: "citations",
  citation_urls: null,
  prompt_suggestions: null,
  topics: null,
  prompt_target_urls: null,
  profiles: "organization_members",
};

/** Column names Ansvisor uses for something answerwatch stores under another name. */
export const COLUMN_ALIASES: Record<string, string> = {
  "prompt_results.model_used": "prompt_results.model",
  "brand_platforms.api_model": "brand_platforms.model",
  "prompt_result_citations.prompt_result_id": "citations.result_id",
  "content_opportunities.description": "suggestions.detail",
  "content_opportunities.impact": "suggestions.priority",
  "content_opportunities.source_data": "suggestions.evidence",
  "ai_traffic_logs.referrer": "ai_traffic_logs.referrer_host (host only)",
  "ai_traffic_logs.user_agent": "ai_traffic_logs.user_agent_family (family only)",
};

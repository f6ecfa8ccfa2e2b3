// The brands the user's organizations track, or the first step when there are none.
import { Empty, ErrorBox, Loading, unwrap, useAsync } from "../components/ui";
import type { Connection } from "../lib/session";

export function Home({ conn }: { conn: Connection }) {
  const brands = useAsync(async () => unwrap(await conn.sb.from("brands").select("id, name, slug, is_active, organization_id, brand_domains(domain, is_primary)").order("name")), []);
  if (brands.loading) return <Loading what="Loading your brands" />;
  if (brands.error) return <ErrorBox error={brands.error} />;
  const list = brands.data as { id: string; name: string; slug: string; is_active: boolean; brand_domains: { domain: string; is_primary: boolean }[] }[];
  if (!list.length)
    return (
      <Empty title="No brand yet">
        <p>Add your brand, its competitors and the questions your customers ask AI assistants; answerwatch asks the engines and shows how often you come up.</p>
        <a class="button primary" href="/onboarding">
          Add a brand
        </a>
      </Empty>
    );
  return (
    <section>
      <div class="heading">
        <h1>Brands</h1>
        <a class="button" href="/onboarding">
          Add a brand
        </a>
      </div>
      <ul class="cards">
        {list.map((b) => (
          <li key={b.id} class="card">
            <a href={`/b/${b.id}/overview`}>
              <strong>{b.name}</strong>
            </a>
            <span class="muted">{b.brand_domains.find((d) => d.is_primary)?.domain ?? b.brand_domains[0]?.domain ?? b.slug}</span>
            {!b.is_active && <span class="tag">inactive</span>}
          </li>
        ))}
      </ul>
    </section>
  );
}

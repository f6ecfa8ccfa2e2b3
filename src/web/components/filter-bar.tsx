// Window, platform, model, region, topic and branded filters; each change goes into the URL.
import { setQuery } from "../lib/router";
import { WINDOW_PRESETS, type FilterOptions, type Filters } from "../lib/filters";

export type { FilterOptions } from "../lib/filters";

/** `branded`: whether the branded / non-branded switch applies to the view (not to traffic). */
export function FilterBar({ filters, options, branded = true, brandedDefault = null }: { filters: Filters; options: FilterOptions; branded?: boolean; brandedDefault?: boolean | null }) {
  const brandedNow = filters.branded === undefined ? brandedDefault : filters.branded;
  const select = (name: string, label: string, value: string | null, values: { value: string; label: string }[]) => (
    <label class="filter">
      <span>{label}</span>
      <select name={name} value={value ?? ""} onChange={(e) => setQuery({ [name]: (e.target as HTMLSelectElement).value || null })}>
        <option value="">All</option>
        {values.map((v) => (
          <option key={v.value} value={v.value}>
            {v.label}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <form class="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
      <fieldset class="segmented" aria-label="Window">
        {WINDOW_PRESETS.map((d) => (
          <button key={d} type="button" aria-pressed={filters.days === d} onClick={() => setQuery({ days: String(d), from: null, to: null })}>
            {d === 365 ? "1 y" : `${d} d`}
          </button>
        ))}
      </fieldset>
      <label class="filter">
        <span>From</span>
        <input type="date" name="from" value={filters.from} max={filters.to} onChange={(e) => setQuery({ from: (e.target as HTMLInputElement).value, to: filters.to, days: null })} />
      </label>
      <label class="filter">
        <span>To</span>
        <input type="date" name="to" value={filters.to} min={filters.from} onChange={(e) => setQuery({ to: (e.target as HTMLInputElement).value, from: filters.from, days: null })} />
      </label>
      {options.platforms.length > 0 && select("platform", "Platform", filters.platform, options.platforms.map((p) => ({ value: p, label: p })))}
      {options.models.length > 1 && select("model", "Model", filters.model, options.models.map((m) => ({ value: m, label: m })))}
      {options.regions.length > 1 && select("region", "Region", filters.region, options.regions.map((r) => ({ value: r, label: r || "(none)" })))}
      {options.topics.length > 0 && select("topic", "Topic", filters.topic, options.topics.map((t) => ({ value: t.id, label: t.name })))}
      {branded && <fieldset class="segmented" aria-label="Prompts">
        {[
          ["all", "all", null],
          ["branded", "true", true],
          ["non-branded", "false", false],
        ].map(([label, value, means]) => (
          <button key={label as string} type="button" aria-pressed={brandedNow === means} onClick={() => setQuery({ branded: value as string })}>
            {label}
          </button>
        ))}
      </fieldset>}
    </form>
  );
}

// Runs: the brand's tracking jobs with status and progress, start and cancel, failed units with
// their reasons — /api/tracking, polled while one is running.
import { useEffect, useState } from "preact/hooks";
import { Table } from "../components/table";
import { Empty, ErrorBox, Loading, useAsync } from "../components/ui";
import { dateTime, int } from "../lib/format";
import { errorMessage } from "../lib/session";
import type { BrandContext } from "../lib/brand-context";

interface Job {
  jobId: string;
  status: string;
  progress: { phase: string; completed: number; failed?: number; total: number };
  result: { failed_units?: { platform: string; model: string; reason: string; prompt_id: string }[]; units?: { answered: number; failed: number } } | null;
  failedReason: string | null;
  platforms: string[];
  createdAt: string;
  finishedAt: string | null;
}

export function Runs({ ctx }: { ctx: BrandContext }) {
  const jobs = useAsync(async () => (await ctx.conn.api<{ jobs: Job[] }>("GET", `/api/tracking/jobs?brandId=${ctx.brand.id}&limit=20`)).jobs, [ctx.brand.id]);
  const [error, setError] = useState<string | null>(null);
  const running = jobs.data?.some((j) => j.status === "waiting" || j.status === "active");
  useEffect(() => {
    if (!running) return;
    const t = setTimeout(jobs.reload, 1500);
    return () => clearTimeout(t);
  }, [jobs.data]);
  async function act(call: () => Promise<unknown>) {
    setError(null);
    try {
      await call();
      jobs.reload();
    } catch (e) {
      setError(errorMessage(e));
    }
  }
  return (
    <section>
      <div class="heading">
        <h2>Runs</h2>
        {ctx.canEdit && (
          <button type="button" class="primary" disabled={running} onClick={() => act(() => ctx.conn.api("POST", "/api/tracking/start", { brandId: ctx.brand.id }))}>
            Run now
          </button>
        )}
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {jobs.loading && !jobs.data ? (
        <Loading what="Loading runs" />
      ) : jobs.error ? (
        <ErrorBox error={jobs.error} />
      ) : !jobs.data!.length ? (
        <Empty title="No run yet">
          <p>{ctx.canEdit ? "Run now to ask the engines your prompts, or wait for the schedule." : "Runs started by your team appear here."}</p>
        </Empty>
      ) : (
        <>
          <Table
            rows={jobs.data!}
            rowKey={(j) => j.jobId}
            csvName={`${ctx.brand.slug}-runs.csv`}
            initialSort={{ key: "createdAt", desc: true }}
            columns={[
              { key: "createdAt", header: "Started", value: (j) => j.createdAt, render: (j) => dateTime(j.createdAt) },
              { key: "status", header: "Status", value: (j) => j.status, render: (j) => <span class={`tag status-${j.status}`}>{j.status}</span> },
              { key: "progress", header: "Progress", value: (j) => `${j.progress.completed}/${j.progress.total}`, render: (j) => (
                  <span class="name-cell">
                    <progress max={j.progress.total || 1} value={j.progress.completed} />
                    <span class="cell-ci">
                      {int(j.progress.completed)} / {int(j.progress.total)} questions
                    </span>
                  </span>
                ),
              },
              { key: "platforms", header: "Platforms", value: (j) => j.platforms.join(", ") },
              { key: "failed", header: "Failed questions", numeric: true, value: (j) => j.result?.failed_units?.length ?? 0 },
              { key: "finishedAt", header: "Finished", value: (j) => j.finishedAt, render: (j) => dateTime(j.finishedAt) },
              {
                key: "actions",
                header: "",
                value: () => "",
                render: (j) =>
                  ctx.canEdit && (j.status === "waiting" || j.status === "active") ? (
                    <button type="button" onClick={() => act(() => ctx.conn.api("POST", `/api/tracking/job/${j.jobId}/cancel`))}>
                      Cancel
                    </button>
                  ) : null,
              },
            ]}
          />
          {jobs.data!.filter((j) => j.failedReason || j.result?.failed_units?.length).slice(0, 3).map((j) => (
            <details key={j.jobId} class="card">
              <summary>
                Failed questions of the run of {dateTime(j.createdAt)}: {j.failedReason}
              </summary>
              <ul>
                {(j.result?.failed_units ?? []).map((u, i) => (
                  <li key={i}>
                    {u.platform} / {u.model}: {u.reason}
                  </li>
                ))}
              </ul>
            </details>
          ))}
        </>
      )}
    </section>
  );
}

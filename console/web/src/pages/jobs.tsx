// Jobs: running and recent jobs with live progress from the feed; the
// selected one (/console/jobs/<id>) per target; abort asks first.
import { useEffect, useState } from "preact/hooks";
import * as api from "../api";
import * as d from "../decode";
import * as fmt from "../format";
import { putJob, State } from "../feed";
import { href } from "../route";

function progressText(p: d.Progress): string {
  const objs = p.objects_total >= 0 ? `${p.objects_done}/${p.objects_total} objects` : `${p.objects_done} objects`;
  const b = p.bytes_total >= 0 ? `${fmt.bytes(p.bytes_done)}/${fmt.bytes(p.bytes_total)}` : fmt.bytes(p.bytes_done);
  return `${objs}, ${b}${p.errors ? `, ${p.errors} errors` : ""}`;
}
function fraction(j: d.Job): number {
  const p = j.progress;
  if (j.state === "finished") return 1;
  if (p.objects_total > 0) return p.objects_done / p.objects_total;
  if (p.bytes_total > 0) return p.bytes_done / p.bytes_total;
  return 0;
}

export function Jobs({ s, selected }: { s: State; selected: string }) {
  const [error, setError] = useState("");
  const [confirm, setConfirm] = useState("");
  useEffect(() => {
    api.listJobs().then((js) => js.forEach(putJob)).catch((e) => setError((e as Error).message));
  }, []);
  const jobs = [...s.jobs.values()].sort((a, b) => b.started_ns - a.started_ns);
  const sel = selected ? s.jobs.get(selected) : undefined;
  const abort = async (id: string) => {
    setConfirm("");
    try {
      putJob(await api.abortJob(id));
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <div class="page jobs">
      <h2>Jobs</h2>
      {error && <p class="error" role="alert">{error}</p>}
      <table class="grid" data-testid="jobs-table">
        <thead><tr><th>job</th><th>kind</th><th>state</th><th>phase</th><th>progress</th><th>started</th><th>ended</th><th /></tr></thead>
        <tbody>
          {jobs.map((j) => (
            <tr key={j.id} class={j.id === selected ? "selected" : ""} data-job={j.id} data-state={j.state}>
              <td><a href={href("jobs", j.id)}>{j.id}</a></td>
              <td>{j.kind}</td>
              <td><span class={`badge job-${j.state}`}>{j.state}</span></td>
              <td>{j.phase}</td>
              <td><progress max={1} value={fraction(j)} /> {progressText(j.progress)}</td>
              <td>{j.started_ns ? fmt.clock(j.started_ns / 1e6) : ""}</td>
              <td>{j.ended_ns ? fmt.clock(j.ended_ns / 1e6) : ""}</td>
              <td>
                {j.state === "running" && (confirm === j.id ? (
                  <span class="confirm" role="alertdialog" aria-label={`abort ${j.id}?`} onKeyDown={(e) => e.key === "Escape" && setConfirm("")}>
                    Abort {j.id}? <button class="danger" onClick={() => abort(j.id)}>Abort</button>
                    <button onClick={() => setConfirm("")}>Keep running</button>
                  </span>
                ) : <button onClick={() => setConfirm(j.id)} disabled={j.abort_requested}>{j.abort_requested ? "aborting…" : "Abort…"}</button>)}
              </td>
            </tr>
          ))}
          {jobs.length === 0 && <tr><td colSpan={8} class="dim">no jobs</td></tr>}
        </tbody>
      </table>
      {sel && (
        <section data-testid="job-detail">
          <h3>{sel.id}</h3>
          {sel.error && <p class="error">{sel.error}</p>}
          <table class="grid">
            <thead><tr><th>target</th><th>state</th><th>phase</th><th>progress</th><th>error</th></tr></thead>
            <tbody>
              {sel.targets.map((t) => (
                <tr key={t.id}><td>{t.id}</td><td>{t.state}</td><td>{t.phase}</td><td>{progressText(t.progress)}</td><td>{t.error}</td></tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </div>
  );
}

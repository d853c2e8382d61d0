// "Run on bucket": the offline ETL job from one bucket into another
// (POST /v1/buckets/SRC, action etl-bck by prefix, or etl-listrange over a
// brace template; docs/etl.md#offline-a-bucket-into-another-bucket), followed
// on the page (GET /v1/jobs/ID every 0.5 s, as the desktop console does)
// until it ends; then a link to the output bucket.
import { useEffect, useRef, useState } from "preact/hooks";
import * as admin from "../admin_api";
import * as api from "../api";
import * as d from "../decode";
import { putJob } from "../feed";
import { href } from "../route";

const kPollMs = 500;
const kFinal = new Set(["finished", "failed", "aborted"]);

function jobLine(j: d.Job): string {
  const p = j.progress;
  const end = j.ended_ns > 0 ? j.ended_ns / 1e9 : Date.now() / 1e3;
  const secs = j.started_ns > 0 ? Math.max(0, end - j.started_ns / 1e9) : 0;
  let t = `${j.state} · ${p.objects_done}${p.objects_total >= 0 ? ` of ${p.objects_total}` : ""} objects`;
  if (p.errors > 0) t += ` · ${p.errors} errors`;
  t += ` · ${secs.toFixed(1)} s`;
  if (j.error) t += ` · ${j.error}`;
  return t;
}

// `onEnded` when a job started here ends (the transformers' counters changed).
export function EtlRun({ etls, selected, onEnded }: { etls: admin.EtlInfo[]; selected: string; onEnded: () => void }) {
  const [buckets, setBuckets] = useState<string[]>([]);
  const [etl, setEtl] = useState(selected);
  const [src, setSrc] = useState("");
  const [dst, setDst] = useState("");
  const [where, setWhere] = useState("");
  const [ext, setExt] = useState("");
  const [perSample, setPerSample] = useState(false);
  const [dryRun, setDryRun] = useState(false);
  const [continueOnErr, setContinueOnErr] = useState(false);
  const [error, setError] = useState("");
  const [job, setJob] = useState<d.Job | null>(null);
  const [output, setOutput] = useState("");
  const timer = useRef(0);
  const alive = useRef(true);  // no poll is scheduled once the page is left

  useEffect(() => {
    api.listBuckets().then((b) => setBuckets(b.sort())).catch(() => undefined);
    return () => {
      alive.current = false;
      window.clearTimeout(timer.current);
    };
  }, []);
  useEffect(() => {
    if (selected) setEtl(selected);
  }, [selected]);
  const current = etl || etls[0]?.name || "";

  const poll = (id: string) => {
    admin.job(id).then((j) => {
      if (!alive.current) return;
      putJob(j);
      setJob(j);
      if (!kFinal.has(j.state)) timer.current = window.setTimeout(() => poll(id), kPollMs);
      else onEnded();
    }).catch((e) => {
      if (!alive.current) return;
      setError((e as Error).message);
      timer.current = window.setTimeout(() => poll(id), kPollMs * 4);
    });
  };
  const run = async (e: Event) => {
    e.preventDefault();
    setError("");
    if (!current || !src.trim() || !dst.trim()) return setError("Choose a transformer, the source bucket and a destination bucket.");
    const extMap = admin.parseExt(ext);
    if (!extMap) return setError("Extensions are pairs like png:jpg, separated by commas.");
    // A brace range is a template of names (etl-listrange), anything else a prefix.
    const isTemplate = /\{[^}]*\.\.[^}]*\}/.test(where);
    const value: admin.EtlBucketValue = { id: current };
    if (where.trim()) value[isTemplate ? "template" : "prefix"] = where.trim();
    if (Object.keys(extMap).length) value.ext = extMap;
    if (dryRun) value.dry_run = true;
    if (continueOnErr) value.continue_on_err = true;
    if (perSample) value.per_sample = true;
    window.clearTimeout(timer.current);
    setJob(null);
    try {
      const j = await admin.etlBucket(src.trim(), dst.trim(), value);
      setOutput(dryRun ? "" : dst.trim());
      putJob(j);
      setJob(j);
      poll(j.id);
    } catch (err) {
      setError(`Not started: ${(err as Error).message}`);
    }
  };
  const running = job !== null && !kFinal.has(job.state);
  return (
    <form class="etl-run card" onSubmit={run} aria-label="run on bucket">
      <h3>Run on bucket</h3>
      <datalist id="etl-buckets">{buckets.map((b) => <option key={b} value={b} />)}</datalist>
      <div class="form-grid">
        <label for="etl-run-etl">transformer</label>
        <select id="etl-run-etl" value={current} onChange={(e) => setEtl((e.target as HTMLSelectElement).value)}>
          {etls.map((x) => <option key={x.name} value={x.name}>{x.name}</option>)}
        </select>
        <label for="etl-run-src">from bucket</label>
        <input id="etl-run-src" list="etl-buckets" value={src} onInput={(e) => setSrc((e.target as HTMLInputElement).value)} />
        <label for="etl-run-dst">into bucket</label>
        <input id="etl-run-dst" list="etl-buckets" value={dst} placeholder="created when missing" onInput={(e) => setDst((e.target as HTMLInputElement).value)} />
        <label for="etl-run-where">objects</label>
        <input id="etl-run-where" value={where} placeholder="prefix (train/) or template (shard-{000..099}.tar); empty: all"
          onInput={(e) => setWhere((e.target as HTMLInputElement).value)} />
        <label for="etl-run-ext">rename extensions</label>
        <input id="etl-run-ext" value={ext} placeholder="png:jpg" onInput={(e) => setExt((e.target as HTMLInputElement).value)} />
      </div>
      <div class="row">
        <label><input type="checkbox" checked={perSample} onChange={(e) => setPerSample((e.target as HTMLInputElement).checked)} /> per sample (each shard into a new shard)</label>
        <label><input type="checkbox" checked={dryRun} onChange={(e) => setDryRun((e.target as HTMLInputElement).checked)} /> dry run (write nothing)</label>
        <label><input type="checkbox" checked={continueOnErr} onChange={(e) => setContinueOnErr((e.target as HTMLInputElement).checked)} /> skip failures</label>
      </div>
      <div class="row">
        <button type="submit" class="primary" disabled={running || etls.length === 0}>Run</button>
        {job && (
          <span data-testid="etl-job" data-state={job.state} class={`job-line job-${job.state}`} role="status">
            Job <a href={href("jobs", job.id)}>{job.id}</a>: {jobLine(job)}
          </span>
        )}
        {job?.state === "finished" && output && <a data-testid="etl-output" href={href("buckets", output)}>Open {output}</a>}
      </div>
      {error && <p class="error" role="alert" data-testid="etl-run-error">{error}</p>}
    </form>
  );
}

// Changing a bucket's protection from the properties panel, as the desktop
// console's properties dialog does (mirror copies across targets), plus
// erasure coding and the checksum check on GET, which the same public call
// sets: PATCH /v1/buckets/<b> set-bprops (admin-bucket permission; the form
// is read-only without it). Only what changed is sent (props_update.ts). A
// change that starts a reprotect job asks first, saying what the job does;
// once applied, the job is found in GET /v1/jobs (the reprotect job that
// was not there before), linked, and followed live from the feed. The
// cluster's refusal is shown under the field it names.
import { useEffect, useState } from "preact/hooks";
import * as api from "../api";
import * as d from "../decode";
import * as feed from "../feed";
import * as fmt from "../format";
import { href } from "../route";
import {
  checkForm, Field, fieldOf, formOf, kMaxCopies, kMaxData, kMaxObjsizeLimit, kMaxParity, Mode, ProtectionForm, Update,
  updateOf,
} from "../props_update";

const kJobLookups = 10;        // GET /v1/jobs after an apply, at most
const kJobLookupGapMs = 300;

const sleep = (ms: number) => new Promise((r) => window.setTimeout(r, ms));

async function reprotectIds(): Promise<Set<string>> {
  return new Set((await api.listJobs()).filter((j) => j.kind === "reprotect").map((j) => j.id));
}

export function ProtectionFormView({ bucket, props, canEdit, readOnlyWhy, onApplied }: {
  bucket: string;
  props: d.BucketProps;
  canEdit: boolean;
  readOnlyWhy: string;
  onApplied: () => Promise<void>;
}) {
  const base = formOf(props);
  const [form, setForm] = useState<ProtectionForm>(base);
  const [edited, setEdited] = useState(false);
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [general, setGeneral] = useState("");
  const [confirm, setConfirm] = useState<Update | null>(null);
  const [applying, setApplying] = useState(false);
  const [status, setStatus] = useState("");
  const [jobId, setJobId] = useState("");
  const [jobWhat, setJobWhat] = useState("");  // what the job started by the last apply does
  // The form follows the bucket's properties (changed here or elsewhere) until the user edits it.
  const baseKey = JSON.stringify(base);
  useEffect(() => {
    if (!edited) setForm(base);
  }, [baseKey]);

  const set = (patch: Partial<ProtectionForm>) => {
    setForm({ ...form, ...patch });
    setEdited(true);
    setErrors({});
    setGeneral("");
    setStatus("");
  };
  const update = updateOf(props, form);

  const send = async (u: Update) => {
    setConfirm(null);
    if (!u.value) return;
    setApplying(true);
    setStatus("applying…");
    setJobId("");
    try {
      const before = u.job ? await reprotectIds() : new Set<string>();
      await api.setBucketProps(bucket, u.value);
      setEdited(false);
      await onApplied();
      let id = "";
      for (let i = 0; u.job && !id && i < kJobLookups; i++) {
        if (i) await sleep(kJobLookupGapMs);
        id = [...(await reprotectIds())].find((j) => !before.has(j)) ?? "";
      }
      setJobId(id);
      setJobWhat(u.job);
      setStatus(u.job ? (id ? `saved; reprotect job ${id} ${u.job}` : `saved; no new reprotect job is listed (see Jobs)`) : "saved");
    } catch (e) {
      const message = (e as Error).message;
      const field = fieldOf(message);
      if (field) setErrors({ [field]: message });
      else setGeneral(message);
      setStatus("not applied");
    } finally {
      setApplying(false);
    }
  };
  const onSubmit = (e: Event) => {
    e.preventDefault();
    const bad = checkForm(form);
    if (bad) {
      setErrors({ [bad.field]: bad.message });
      return;
    }
    if (!update.value) return;
    if (update.job) setConfirm(update);
    else void send(update);
  };
  const num = (v: string) => (v.trim() === "" ? NaN : Number(v));
  const err = (f: Field) => errors[f] && <span class="field-error" role="alert" data-testid={`props-error-${f}`}>{errors[f]}</span>;
  const targets = feed.state.smap?.targets.length ?? 0;
  const job = jobId ? feed.state.jobs.get(jobId) : undefined;
  const modes: [Mode, string][] = [["none", "one copy"], ["mirror", "mirror"], ["ec", "erasure coding"]];

  return (
    <form class="props-form" data-testid="props-form" aria-label={`change the protection of ${bucket}`} onSubmit={onSubmit}>
      <fieldset disabled={!canEdit || applying}>
        <legend>Change</legend>
        {!canEdit && <p class="dim" data-testid="props-readonly">{readOnlyWhy}</p>}
        <div class={`field${errors.mode ? " has-error" : ""}`} data-field="mode" role="radiogroup" aria-label="protection">
          <span>protection</span>
          <span class="row">
            {modes.map(([m, label]) => (
              <label key={m}><input type="radio" name={`mode-${bucket}`} value={m} checked={form.mode === m} onChange={() => set({ mode: m })} /> {label}</label>
            ))}
          </span>
          {err("mode")}
        </div>
        {form.mode === "mirror" && (
          <div class={`field${errors.copies ? " has-error" : ""}`} data-field="copies">
            <label for={`copies-${bucket}`}>copies</label>
            <span class="row">
              <input id={`copies-${bucket}`} type="number" min={2} max={kMaxCopies} value={form.copies} aria-label="copies"
                onInput={(e) => set({ copies: num((e.target as HTMLInputElement).value) })} />
              <span class="dim">targets hold each object, itself included; each on another target{targets ? ` (the cluster has ${targets})` : ""}</span>
            </span>
            {err("copies")}
          </div>
        )}
        {form.mode === "ec" && (
          <>
            <div class={`field${errors.slices ? " has-error" : ""}`} data-field="slices">
              <label for={`data-${bucket}`}>slices</label>
              <span class="row">
                <input id={`data-${bucket}`} type="number" min={1} max={kMaxData} value={form.data} aria-label="data slices"
                  onInput={(e) => set({ data: num((e.target as HTMLInputElement).value) })} /> data +
                <input type="number" min={1} max={kMaxParity} value={form.parity} aria-label="parity slices"
                  onInput={(e) => set({ parity: num((e.target as HTMLInputElement).value) })} /> parity
                <span class="dim">any {form.parity} target{form.parity === 1 ? "" : "s"} may be lost; needs {form.data + form.parity + 1} targets{targets ? ` (the cluster has ${targets})` : ""}; fixed while on</span>
              </span>
              {err("slices")}
            </div>
            <div class={`field${errors.limit ? " has-error" : ""}`} data-field="limit">
              <label for={`limit-${bucket}`}>copied whole under</label>
              <span class="row">
                <input id={`limit-${bucket}`} type="number" min={0} max={kMaxObjsizeLimit} value={form.limit} aria-label="size limit in bytes"
                  onInput={(e) => set({ limit: num((e.target as HTMLInputElement).value) })} />
                <span class="dim">bytes ({Number.isFinite(form.limit) ? fmt.bytes(form.limit) : "?"}): smaller objects are copied whole to {form.parity} other target{form.parity === 1 ? "" : "s"}</span>
              </span>
              {err("limit")}
            </div>
          </>
        )}
        <div class={`field${errors.checksum ? " has-error" : ""}`} data-field="checksum">
          <span>checksum</span>
          <label><input type="checkbox" checked={form.validateWarmGet} onChange={(e) => set({ validateWarmGet: (e.target as HTMLInputElement).checked })} /> checked on every GET</label>
          {err("checksum")}
        </div>
        <div class="row">
          <button type="submit" disabled={!update.value} data-testid="props-apply">Apply</button>
          <button type="button" disabled={!edited} onClick={() => { setForm(base); setEdited(false); setErrors({}); setGeneral(""); }}>Reset</button>
          {status && (
            <span data-testid="props-status" class={status === "not applied" ? "error" : "dim"}>
              {jobId ? <>saved; reprotect job <a href={href("jobs", jobId)} data-testid="props-job">{jobId}</a> {jobWhat}</> : status}
              {job && <span data-testid="props-job-state" data-state={job.state}> · {job.state}</span>}
            </span>
          )}
        </div>
        {general && <p class="error" role="alert" data-testid="props-error">{general}</p>}
      </fieldset>
      {confirm && (
        <div class="dialog" role="alertdialog" aria-labelledby={`confirm-${bucket}`} data-testid="props-confirm"
          onKeyDown={(e) => e.key === "Escape" && setConfirm(null)}>
          <h3 id={`confirm-${bucket}`}>Change the protection of “{bucket}”?</h3>
          <p>This starts a reprotect job on <b>{bucket}</b> that {confirm.job}.</p>
          <div class="row">
            <button type="button" class="danger" onClick={() => void send(confirm)} autoFocus>Apply and start the job</button>
            <button type="button" onClick={() => setConfirm(null)}>Cancel</button>
          </div>
        </div>
      )}
    </form>
  );
}

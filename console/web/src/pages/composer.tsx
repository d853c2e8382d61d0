// The dSort and ishard composers: a form and the spec (JSON) side by side,
// each editing the other; Preview asks the proxy for a dry run (its own
// validation and plan: nothing starts), Start posts the same spec and
// opens the job. Every "/<field>: message" of a 400 is shown under its
// field; what no field shows goes above the form.
import { useState } from "preact/hooks";
import * as api from "../api";
import * as d from "../decode";
import * as fmt from "../format";
import { href, navigate } from "../route";
import { fieldErrors } from "../spec_errors";

interface Field {
  path: string;  // JSON pointer without the leading '/', '/'-separated
  label: string;
  kind?: "text" | "select" | "list";
  options?: string[];
  hint?: string;
}

interface ComposerKind {
  title: string;
  dryRunPath: string;
  startPath: string;
  fields: Field[];
  initial: d.Obj;
}

const kinds: Record<string, ComposerKind> = {
  ishard: {
    title: "ishard: loose files into WebDataset shards",
    dryRunPath: "/v1/ishard?dry_run=true",
    startPath: "/v1/ishard",
    initial: { src_bck: "", dst_bck: "", shard_size: "16MiB", ext: ".tar", sort: "alpha" },
    fields: [
      { path: "src_bck", label: "source bucket" },
      { path: "dst_bck", label: "destination bucket" },
      { path: "prefix", label: "prefix" },
      { path: "shard_size", label: "shard size", hint: "4096, 100MB, 16MiB (or a sample count below)" },
      { path: "sample_count", label: "samples per shard" },
      { path: "shard_template", label: "shard names", hint: "shard-{000000..999999}" },
      { path: "ext", label: "format", kind: "select", options: [".tar", ".tgz", ".tar.gz", ".tar.lz4", ".zip"] },
      { path: "sort", label: "order", hint: "alpha, shuffle, shuffle:SEED, none" },
      { path: "missing_extension_action", label: "missing extension", kind: "select", options: ["", "ignore", "warn", "exclude", "abort"] },
      { path: "sample_exts", label: "sample extensions", kind: "list", hint: ".png, .cls, .json" },
    ],
  },
  sort: {
    title: "dSort: shuffle or sort the records of shards",
    dryRunPath: "/v1/sort?dry_run=true",
    startPath: "/v1/sort",
    initial: { input_bck: "", input_format: { template: "" }, output_shard_size: "100MB", algorithm: { kind: "alphanumeric" } },
    fields: [
      { path: "input_bck", label: "input bucket" },
      { path: "input_format/template", label: "input shards", hint: "shard-{0000..0099}" },
      { path: "input_extension", label: "input format", kind: "select", options: ["", ".tar", ".tgz", ".tar.gz", ".tar.lz4", ".zip"] },
      { path: "output_bck", label: "output bucket" },
      { path: "output_format", label: "output names", hint: "shard-{00000..99999}" },
      { path: "output_shard_size", label: "output shard size", hint: "100MB, 256MiB or \"1000 records\"" },
      { path: "algorithm/kind", label: "algorithm", kind: "select", options: ["alphanumeric", "shuffle", "content", "none"] },
      { path: "algorithm/seed", label: "seed (shuffle)" },
      { path: "algorithm/extension", label: "key file (content)" },
      { path: "algorithm/content_key_type", label: "key type (content)", kind: "select", options: ["", "int", "float", "string"] },
    ],
  },
};

function getAt(o: d.Obj, path: string): unknown {
  let cur: unknown = o;
  for (const k of path.split("/")) cur = d.obj(cur)[k];
  return cur;
}
function setAt(o: d.Obj, path: string, value: unknown): d.Obj {
  const keys = path.split("/");
  const out: d.Obj = { ...o };
  let cur = out;
  keys.forEach((k, i) => {
    if (i === keys.length - 1) {
      if (value === "" || (Array.isArray(value) && value.length === 0)) delete cur[k];
      else cur[k] = value;
    } else {
      cur[k] = { ...d.obj(cur[k]) };
      cur = cur[k] as d.Obj;
    }
  });
  return out;
}
function fieldText(v: unknown, f: Field): string {
  if (f.kind === "list") return d.arr(v).map((x) => d.str(x)).join(", ");
  return d.str(v);
}
function fieldValue(text: string, f: Field): unknown {
  if (f.kind === "list") return text.split(",").map((s) => s.trim()).filter(Boolean);
  if (f.path === "sample_count") return text.trim() === "" ? "" : Number(text);
  return text;
}

function Plan({ kind, plan }: { kind: string; plan: d.Obj }) {
  const warnings = d.arr(plan.warnings).map((w) => d.str(w));
  const shards = d.arr(plan.shards).map(d.obj);
  return (
    <section class="plan" data-testid="plan">
      <h3>Plan (dry run: nothing started)</h3>
      <p>
        {kind === "ishard"
          ? `${d.num(plan.samples)} samples, ${d.num(plan.objects)} objects, ${fmt.bytes(d.num(plan.input_bytes))} in ${shards.length} shards`
          : `${d.num(plan.records)} records from ${d.num(plan.found)} of ${d.num(plan.input_shards)} shards into ${d.num(plan.output_shards)} shards, ${fmt.bytes(d.num(plan.output_bytes))}`}
        {plan.seed !== undefined ? ` · seed ${d.str(plan.seed)}` : ""}
      </p>
      {warnings.length > 0 && <ul class="warnings">{warnings.map((w, i) => <li key={i} class="warn">{w}</li>)}</ul>}
      <table class="grid">
        <thead><tr><th>shard</th><th>{kind === "ishard" ? "samples" : "records"}</th>{kind === "ishard" ? <th>objects</th> : <th>target</th>}<th>size</th></tr></thead>
        <tbody>
          {shards.slice(0, 200).map((s) => (
            <tr key={d.str(s.name)} data-testid="plan-shard">
              <td>{d.str(s.name)}</td>
              <td class="num">{d.num(kind === "ishard" ? s.samples : s.records)}</td>
              <td class={kind === "ishard" ? "num" : ""}>{kind === "ishard" ? d.num(s.objects) : d.str(s.target)}</td>
              <td class="num">{fmt.bytes(d.num(s.bytes))}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

export function Composer({ kind }: { kind: string }) {
  const k = kinds[kind];
  const [spec, setSpec] = useState<d.Obj>(k.initial);
  const [text, setText] = useState(JSON.stringify(k.initial, null, 2));
  const [syntax, setSyntax] = useState("");
  const [errors, setErrors] = useState<Map<string, string>>(new Map());
  const [error, setError] = useState("");
  const [plan, setPlan] = useState<d.Obj | null>(null);
  const [busy, setBusy] = useState(false);

  const edit = (f: Field, value: string) => {
    const next = setAt(spec, f.path, fieldValue(value, f));
    setSpec(next);
    setText(JSON.stringify(next, null, 2));
    setSyntax("");
    setPlan(null);
    if (errors.has(f.path)) {
      const e = new Map(errors);
      e.delete(f.path);
      setErrors(e);
    }
  };
  const editText = (t: string) => {
    setText(t);
    setPlan(null);
    try {
      const j = JSON.parse(t);
      if (j === null || typeof j !== "object" || Array.isArray(j)) throw new Error("the spec is a JSON object");
      setSpec(j as d.Obj);
      setSyntax("");
    } catch (e) {
      setSyntax((e as Error).message);
    }
  };
  const run = async (dry: boolean) => {
    setBusy(true);
    setError("");
    setErrors(new Map());
    try {
      const r = await api.call(dry ? k.dryRunPath : k.startPath, {
        method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(spec),
      });
      const body = await r.text();
      if (dry) {
        const o = d.obj(JSON.parse(body));
        setPlan(d.obj(o.plan));
        // The spec as it would run (a shuffle's seed filled in): starting it runs this plan.
        if (o.spec) {
          const s = { ...d.obj(o.spec) };
          delete s.dry_run;
          setSpec(s);
          setText(JSON.stringify(s, null, 2));
        }
      } else {
        let id = body.trim();
        try {
          id = d.str(d.obj(JSON.parse(body)).id, id);
        } catch {
          /* dSort answers the id as text */
        }
        navigate(href("jobs", id));
      }
    } catch (e) {
      const { byField, rest } = fieldErrors((e as Error).message);
      setErrors(byField);
      const shown = new Set(k.fields.map((f) => f.path));
      const other = [...byField.entries()].filter(([p]) => !shown.has(p)).map(([p, m]) => `/${p}: ${m}`);
      setError([rest, ...other].filter(Boolean).join("; "));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="page composer">
      <h2>{k.title}</h2>
      <div class="composer-layout">
        <form class="composer-form card" onSubmit={(e) => { e.preventDefault(); void run(true); }} aria-label="spec form">
          {k.fields.map((f) => {
            const id = `f-${kind}-${f.path.replace(/\//g, "-")}`;
            const value = fieldText(getAt(spec, f.path), f);
            const err = errors.get(f.path);
            return (
              <div class={`field${err ? " has-error" : ""}`} key={f.path} data-field={f.path}>
                <label for={id}>{f.label}</label>
                {f.kind === "select" ? (
                  <select id={id} value={value} onChange={(e) => edit(f, (e.target as HTMLSelectElement).value)}>
                    {f.options!.map((o) => <option key={o} value={o}>{o || "(default)"}</option>)}
                  </select>
                ) : (
                  <input id={id} value={value} placeholder={f.hint} aria-invalid={err ? "true" : undefined}
                    onInput={(e) => edit(f, (e.target as HTMLInputElement).value)} />
                )}
                {err && <span class="field-error" role="alert">{err}</span>}
              </div>
            );
          })}
          <div class="row">
            <button type="submit" disabled={busy || !!syntax}>Preview (dry run)</button>
            <button type="button" class="primary" disabled={busy || !!syntax} onClick={() => void run(false)}>Start</button>
          </div>
        </form>
        <div class="composer-spec">
          <label for={`spec-${kind}`}>Spec (JSON)</label>
          <textarea id={`spec-${kind}`} spellcheck={false} value={text} onInput={(e) => editText((e.target as HTMLTextAreaElement).value)} data-testid="spec-text" />
          {syntax && <p class="error" role="alert">JSON: {syntax}</p>}
        </div>
      </div>
      {error && <p class="error" role="alert" data-testid="composer-error">{error}</p>}
      {plan && <Plan kind={kind} plan={plan} />}
    </div>
  );
}

// A new transformer: the spec as a form and as JSON side by side, each
// editing the other (docs/etl.md#the-spec). Init sends it to the proxy
// (PUT /v1/etl), which answers once every target runs it; a refusal's
// "/<field>: message" shows under its field. The proxy has no dry run for
// an ETL (the desktop console sends the spec the same way).
import { useState } from "preact/hooks";
import * as admin from "../admin_api";
import * as d from "../decode";
import { fieldErrors } from "../spec_errors";

interface Field {
  key: string;
  label: string;
  kind?: "text" | "select" | "lines" | "number";
  options?: string[];
  hint?: string;
}

const kFields: Field[] = [
  { key: "name", label: "name", hint: "2-32 of a-z 0-9 - _" },
  { key: "communication", label: "mode", kind: "select", options: ["io://", "hpush://", "hpull://"] },
  { key: "command", label: "command (argv, one per line)", kind: "lines", hint: "md5" },
  { key: "framing", label: "framing (io://)", kind: "select", options: ["", "none", "length"] },
  { key: "obj_timeout", label: "object timeout", hint: "1m (10ms..1h)" },
  { key: "init_timeout", label: "start timeout (http)", hint: "30s (100ms..10m)" },
  { key: "pool_size", label: "processes per target", kind: "number", hint: "0: 2 × cores" },
  { key: "memory_limit", label: "memory limit", hint: "4GiB" },
  { key: "max_output_size", label: "max output size", hint: "256MiB" },
];

export const kInitialSpec: d.Obj = { name: "", communication: "io://", command: [], obj_timeout: "30s" };

function fieldText(v: unknown, f: Field): string {
  if (f.kind === "lines") return d.arr(v).map((x) => d.str(x)).join("\n");
  if (v === undefined || v === null) return "";
  return typeof v === "number" ? String(v) : d.str(v);
}
function fieldValue(text: string, f: Field): unknown {
  if (f.kind === "lines") return text.split("\n").map((s) => s.trim()).filter(Boolean);
  if (f.kind === "number" && /^\d+$/.test(text.trim())) return Number(text.trim());
  return text;
}
// The first segment of a pointer: "/command/0" is about the command field.
function fieldOf(pointer: string): string {
  return pointer.split("/")[0];
}

export function EtlCompose({ onStarted }: { onStarted: (info: admin.EtlInfo) => void }) {
  const [spec, setSpec] = useState<d.Obj>(kInitialSpec);
  const [text, setText] = useState(JSON.stringify(kInitialSpec, null, 2));
  const [syntax, setSyntax] = useState("");
  const [errors, setErrors] = useState<Map<string, string>>(new Map());
  const [error, setError] = useState("");
  const [status, setStatus] = useState("");
  const [busy, setBusy] = useState(false);
  // The command as typed (a trailing new line kept while typing the next argument).
  const [rawLines, setRawLines] = useState<Record<string, string>>({});

  const edit = (f: Field, value: string) => {
    const next: d.Obj = { ...spec };
    const v = fieldValue(value, f);
    if (v === "" || (Array.isArray(v) && v.length === 0 && f.kind !== "lines")) delete next[f.key];
    else next[f.key] = v;
    setSpec(next);
    setText(JSON.stringify(next, null, 2));
    setSyntax("");
    if (f.kind === "lines") setRawLines({ ...rawLines, [f.key]: value });
    if (errors.has(f.key)) {
      const e = new Map(errors);
      e.delete(f.key);
      setErrors(e);
    }
  };
  const editText = (t: string) => {
    setText(t);
    try {
      const j = JSON.parse(t);
      if (j === null || typeof j !== "object" || Array.isArray(j)) throw new Error("the spec is a JSON object");
      setSpec(j as d.Obj);
      setRawLines({});
      setSyntax("");
    } catch (e) {
      setSyntax((e as Error).message);
    }
  };
  const init = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError("");
    setErrors(new Map());
    setStatus("starting the transformer on every target…");
    try {
      const info = await admin.initEtl(spec);
      setStatus(`${info.name} runs on every target (${info.stage})`);
      onStarted(info);
    } catch (err) {
      setStatus("");
      const { byField, rest } = fieldErrors((err as Error).message);
      const shown = new Set(kFields.map((f) => f.key));
      const onFields = new Map<string, string>();
      const other: string[] = [];
      for (const [p, m] of byField) {
        if (shown.has(fieldOf(p)) && !onFields.has(fieldOf(p))) onFields.set(fieldOf(p), p === fieldOf(p) ? m : `/${p}: ${m}`);
        else other.push(`/${p}: ${m}`);
      }
      setErrors(onFields);
      setError([rest, ...other].filter(Boolean).join("; "));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="etl-compose card" aria-label="new transformer">
      <h3>New transformer</h3>
      <div class="composer-layout">
        <form class="composer-form" onSubmit={init} aria-label="ETL spec form">
          {kFields.map((f) => {
            const id = `etl-f-${f.key}`;
            const value = f.kind === "lines" && rawLines[f.key] !== undefined ? rawLines[f.key] : fieldText(spec[f.key], f);
            const err = errors.get(f.key);
            return (
              <div class={`field${err ? " has-error" : ""}`} key={f.key} data-field={f.key}>
                <label for={id}>{f.label}</label>
                {f.kind === "select" ? (
                  <select id={id} value={value} onChange={(e) => edit(f, (e.target as HTMLSelectElement).value)}>
                    {f.options!.map((o) => <option key={o} value={o}>{o || "(default)"}</option>)}
                  </select>
                ) : f.kind === "lines" ? (
                  <textarea id={id} rows={3} value={value} placeholder={f.hint} aria-invalid={err ? "true" : undefined}
                    spellcheck={false} onInput={(e) => edit(f, (e.target as HTMLTextAreaElement).value)} />
                ) : (
                  <input id={id} value={value} placeholder={f.hint} aria-invalid={err ? "true" : undefined}
                    onInput={(e) => edit(f, (e.target as HTMLInputElement).value)} />
                )}
                {err && <span class="field-error" role="alert">{err}</span>}
              </div>
            );
          })}
          <p class="dim small">The command's first argument must be an executable in the targets' ETL directories
            (<code>etl_bin_dirs</code>; Tessera's samples: <code>md5</code>, <code>xxhash</code>,{" "}
            <code>resize_image.py</code>, <code>json_filter</code>, <code>http_server.py</code>).</p>
          <div class="row">
            <button type="submit" class="primary" disabled={busy || !!syntax}>Init</button>
            {status && <span class="dim" role="status" data-testid="etl-init-status">{status}</span>}
          </div>
        </form>
        <div class="composer-spec">
          <label for="etl-spec-text">Spec (JSON)</label>
          <textarea id="etl-spec-text" spellcheck={false} value={text} onInput={(e) => editText((e.target as HTMLTextAreaElement).value)} data-testid="etl-spec-text" />
          {syntax && <p class="error" role="alert">JSON: {syntax}</p>}
        </div>
      </div>
      {error && <p class="error" role="alert" data-testid="etl-init-error">{error}</p>}
    </section>
  );
}

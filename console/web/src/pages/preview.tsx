// Object preview: the first bytes of the object (Range, at most
// kPreviewCap) shown as an image, JSON, UTF-8 text or a hex dump; a .tar
// shard as one row per WebDataset sample (thumbnail, label, fields, flags)
// from its listing with members and the bytes read.
import { useEffect, useMemo, useState } from "preact/hooks";
import * as api from "../api";
import * as d from "../decode";
import { downloadWithToken } from "../download";
import * as fmt from "../format";
import { readTar, wdsSplit } from "../tar";

export const kPreviewCap = 1 << 20;       // 1 MiB, as the desktop console
export const kShardCap = 16 << 20;        // a shard's first 16 MiB for thumbnails and labels
export const kHexCap = 64 << 10;          // a hex dump shows at most 64 KiB
const kShardExt = /\.(tar|tgz|tar\.gz|tar\.lz4|zip)$/i;
const kImageExt = /\.(png|jpe?g|gif|webp|bmp|svg)$/i;

export function isShard(name: string): boolean {
  return kShardExt.test(name);
}

function imageType(b: Uint8Array, name: string): string {
  if (b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) return "image/png";
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
  if (b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46) return "image/gif";
  if (b[0] === 0x52 && b[1] === 0x49 && b[2] === 0x46 && b[8] === 0x57 && b[9] === 0x45) return "image/webp";
  if (b[0] === 0x42 && b[1] === 0x4d && /\.bmp$/i.test(name)) return "image/bmp";
  return "";
}

function utf8(b: Uint8Array): string | null {
  try {
    const s = new TextDecoder("utf-8", { fatal: true }).decode(b);
    // eslint-disable-next-line no-control-regex
    return /[\x00-\x08\x0e-\x1f]/.test(s) ? null : s;
  } catch {
    return null;
  }
}

function hexDump(b: Uint8Array): string {
  const lines: string[] = [];
  const n = Math.min(b.length, kHexCap);
  for (let off = 0; off < n; off += 16) {
    const row = b.subarray(off, Math.min(off + 16, n));
    const hex = Array.from(row, (x) => x.toString(16).padStart(2, "0")).join(" ");
    const asc = Array.from(row, (x) => (x >= 32 && x < 127 ? String.fromCharCode(x) : ".")).join("");
    lines.push(`${off.toString(16).padStart(8, "0")}  ${hex.padEnd(47)}  ${asc}`);
  }
  return lines.join("\n");
}

function useObjectUrl(data: Uint8Array | null, type: string): string {
  const url = useMemo(() => (data && type ? URL.createObjectURL(new Blob([data as Uint8Array<ArrayBuffer>], { type })) : ""), [data, type]);
  useEffect(() => () => void (url && URL.revokeObjectURL(url)), [url]);
  return url;
}

function Body({ name, bytes }: { name: string; bytes: api.Bytes }) {
  const img = imageType(bytes.data, name) || (kImageExt.test(name) && /\.svg$/i.test(name) ? "image/svg+xml" : "");
  const url = useObjectUrl(img ? bytes.data : null, img);
  if (img) return <img class="preview-image" src={url} alt={name} data-testid="preview-image" />;
  const text = utf8(bytes.data);
  if (text !== null) {
    try {
      const j = JSON.parse(text);
      return <pre class="preview-text" data-testid="preview-json">{JSON.stringify(j, null, 2)}</pre>;
    } catch {
      return <pre class="preview-text" data-testid="preview-text">{text}</pre>;
    }
  }
  return <pre class="preview-hex" data-testid="preview-hex">{hexDump(bytes.data)}</pre>;
}

interface Sample {
  key: string;
  fields: Map<string, { size: number; data: Uint8Array | null }>;
}

function Thumb({ data, type, alt }: { data: Uint8Array; type: string; alt: string }) {
  const url = useObjectUrl(data, type);
  return <img class="thumb" src={url} alt={alt} />;
}

function ShardPreview({ bucket, name }: { bucket: string; name: string }) {
  const [members, setMembers] = useState<d.Entry[] | null>(null);
  const [bytes, setBytes] = useState<api.Bytes | null>(null);
  const [error, setError] = useState("");
  useEffect(() => {
    const ctl = new AbortController();
    setMembers(null);
    setBytes(null);
    setError("");
    (async () => {
      // Every member, page by page: the shard and its members come together.
      const all: d.Entry[] = [];
      let token = "";
      do {
        const page = await api.listObjects(bucket, { prefix: name, token, archive: true, pageSize: 10000 }, ctl.signal);
        for (const e of page.entries) if (e.name.startsWith(name + "/") && e.flags & d.kEntryInArch) all.push(e);
        token = page.token;
      } while (token && all.length < 100000);
      setMembers(all);
      if (/\.tar$/i.test(name)) setBytes(await api.readObject(bucket, name, kShardCap, ctl.signal));
    })().catch((e) => ctl.signal.aborted || setError((e as Error).message));
    return () => ctl.abort();
  }, [bucket, name]);

  const samples = useMemo(() => {
    if (!members) return [];
    const read = new Map<string, Uint8Array | null>();
    if (bytes) for (const m of readTar(bytes.data).members) read.set(m.name, m.data);
    const byKey = new Map<string, Sample>();
    for (const m of members) {
      const member = m.name.slice(name.length + 1);
      const { key, field } = wdsSplit(member);
      let s = byKey.get(key);
      if (!s) byKey.set(key, (s = { key, fields: new Map() }));
      s.fields.set(field, { size: m.size, data: read.get(member) ?? null });
    }
    return [...byKey.values()];
  }, [members, bytes]);

  if (error) return <p class="error" role="alert">{error}</p>;
  if (!members) return <p class="dim">reading the shard's members…</p>;
  const counts = new Map<string, number>();
  for (const s of samples) for (const f of s.fields.keys()) counts.set(f, (counts.get(f) ?? 0) + 1);
  const common = [...counts.entries()].filter(([, n]) => n * 2 > samples.length).map(([f]) => f);
  const fields = [...counts.keys()].sort((a, b) => {
    const rank = (f: string) => (/^(jpe?g|png|webp|gif)$/.test(f) ? 0 : f === "cls" ? 1 : /^(json|txt)$/.test(f) ? 2 : 3);
    return rank(a) - rank(b) || a.localeCompare(b);
  });
  const incomplete = samples.filter((s) => common.some((f) => !s.fields.has(f))).length;
  return (
    <div class="shard" data-testid="shard-preview">
      <p class="dim">
        {samples.length} samples, {members.length} members, {incomplete} incomplete
        {bytes && bytes.total > bytes.data.length ? ` · contents read for the first ${fmt.bytes(bytes.data.length)} of ${fmt.bytes(bytes.total)}` : ""}
        {!/\.tar$/i.test(name) ? " · thumbnails and labels for .tar shards only" : ""}
      </p>
      <table class="grid samples">
        <thead><tr><th>key</th>{fields.map((f) => <th key={f}>{f}</th>)}<th>flags</th></tr></thead>
        <tbody>
          {samples.slice(0, 500).map((s) => {
            const missing = common.filter((f) => !s.fields.has(f));
            const flags = [missing.length ? `missing: ${missing.join(", ")}` : "", s.key.includes(".") ? "dot in key" : ""].filter(Boolean);
            return (
              <tr key={s.key} data-testid="sample-row" data-key={s.key}>
                <td>{s.key}</td>
                {fields.map((f) => {
                  const v = s.fields.get(f);
                  if (!v) return <td key={f} class="missing" />;
                  const img = v.data ? imageType(v.data, f) : "";
                  if (img && v.data) return <td key={f}><Thumb data={v.data} type={img} alt={`${s.key}.${f}`} /></td>;
                  const text = v.data && v.data.length <= 65536 ? utf8(v.data) : null;
                  if (text !== null && (f === "cls" || f === "txt" || f === "json")) {
                    return <td key={f} data-field={f} class="label">{text.trim().slice(0, 80)}</td>;
                  }
                  return <td key={f} class="dim">{fmt.bytes(v.size)}</td>;
                })}
                <td class="flags">{flags.join("; ")}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {samples.length > 500 && <p class="dim">the first 500 of {samples.length} samples</p>}
    </div>
  );
}

// A plain link without a session; with one, the bytes fetched with the
// token (download.ts says why and up to what size).
function Download({ bucket, name }: { bucket: string; name: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  if (!api.currentSession()) {
    return <a class="button" href={api.downloadUrl(bucket, name)} download={name.split("/").pop()} data-testid="download">Download</a>;
  }
  const go = () => {
    setBusy(true);
    setError("");
    downloadWithToken(bucket, name).catch((e) => setError((e as Error).message)).finally(() => setBusy(false));
  };
  return (
    <>
      <button class="button" onClick={go} disabled={busy} data-testid="download">{busy ? "Downloading…" : "Download"}</button>
      {error && <p class="error download-error" role="alert" data-testid="download-error">{error}</p>}
    </>
  );
}

export function Preview({ bucket, name, onClose }: { bucket: string; name: string; onClose: () => void }) {
  const [bytes, setBytes] = useState<api.Bytes | null>(null);
  const [error, setError] = useState("");
  const shard = isShard(name);
  useEffect(() => {
    if (shard) return;
    const ctl = new AbortController();
    setBytes(null);
    setError("");
    api.readObject(bucket, name, kPreviewCap, ctl.signal).then(setBytes).catch((e) => ctl.signal.aborted || setError((e as Error).message));
    return () => ctl.abort();
  }, [bucket, name]);
  return (
    <section class="preview" data-testid="preview" aria-label={`preview of ${name}`}>
      <header>
        <h3>{name}</h3>
        <Download bucket={bucket} name={name} />
        <button onClick={onClose} aria-label="close the preview">✕</button>
      </header>
      {error && <p class="error" role="alert">{error}</p>}
      {shard ? <ShardPreview bucket={bucket} name={name} /> : bytes ? (
        <>
          <p class="dim" data-testid="preview-info">
            {bytes.total >= 0 && bytes.total > bytes.data.length
              ? `first ${fmt.bytes(bytes.data.length)} of ${fmt.bytes(bytes.total)} (truncated at the preview limit)`
              : fmt.bytes(bytes.data.length)}
          </p>
          <Body name={name} bytes={bytes} />
        </>
      ) : !error && <p class="dim">reading…</p>}
    </section>
  );
}

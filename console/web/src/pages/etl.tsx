// The ETL page, the web counterpart of the desktop console's (docs/etl.md):
// the transformers the cluster runs (GET /v1/etl, read again when the feed
// announces an etl_* event), one of them at /console/etl/<name> (its spec,
// each target's state, its last errors and logs; stop, start, and remove
// after a confirmation naming it), a new one composed as a form and a spec
// (PUT /v1/etl), and the offline job from bucket to bucket.
import { useEffect, useState } from "preact/hooks";
import * as admin from "../admin_api";
import * as api from "../api";
import * as fmt from "../format";
import { State } from "../feed";
import { href, navigate } from "../route";
import { EtlCompose } from "./etl_compose";
import { EtlRun } from "./etl_run";

// `tick` changes when the transformer's counters may have (a job ended): read again.
function EtlDetail({ name, tick, onChanged }: { name: string; tick: number; onChanged: () => void }) {
  const [info, setInfo] = useState<admin.EtlDetail | null>(null);
  const [logs, setLogs] = useState<{ target: string; log: string }[] | null>(null);
  const [error, setError] = useState("");
  const [confirm, setConfirm] = useState(false);
  const [busy, setBusy] = useState(false);
  const load = () => {
    admin.showEtl(name).then((i) => { setInfo(i); setError(""); }).catch((e) => setError((e as Error).message));
  };
  useEffect(() => {
    setInfo(null);
    setLogs(null);
    setConfirm(false);
    load();
  }, [name]);
  useEffect(() => {
    if (tick) load();
  }, [tick]);
  const act = async (what: () => Promise<void>, after: () => void) => {
    setBusy(true);
    setError("");
    try {
      await what();
      after();
      onChanged();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="etl-detail card" data-testid="etl-detail" data-etl={name}>
      <header class="row">
        <h3>{name}</h3>
        {info && <span class={`badge stage-${info.stage}`} data-testid="etl-detail-stage">{info.stage}</span>}
        <span class="spacer" />
        {info && (info.stage === "stopped"
          ? <button disabled={busy} onClick={() => act(() => admin.setEtlRunning(name, true), load)}>Start</button>
          : <button disabled={busy} onClick={() => act(() => admin.setEtlRunning(name, false), load)}>Stop</button>)}
        <button onClick={() => admin.etlLogs(name).then(setLogs).catch((e) => setError((e as Error).message))}>Logs</button>
        {confirm ? (
          <span class="confirm" role="alertdialog" aria-label={`remove ${name}?`} onKeyDown={(e) => e.key === "Escape" && setConfirm(false)}>
            Remove transformer {name}? Every target stops it; reads naming it answer 404.
            <button class="danger" disabled={busy} onClick={() => act(() => admin.removeEtl(name), () => navigate(href("etl")))}>Remove</button>
            <button autoFocus onClick={() => setConfirm(false)}>Keep</button>
          </span>
        ) : <button class="danger" onClick={() => setConfirm(true)}>Remove…</button>}
      </header>
      {error && <p class="error" role="alert" data-testid="etl-detail-error">{error}</p>}
      {info && (
        <>
          <table class="grid">
            <thead><tr><th>target</th><th>stage</th><th>pid</th><th class="num">objects</th><th class="num">errors</th><th class="num">restarts</th><th>last error</th></tr></thead>
            <tbody>
              {info.targets.map((t) => (
                <tr key={t.target}>
                  <td>{t.target}</td><td>{t.stage}</td><td>{t.pid || ""}</td><td class="num">{t.objects_in}</td>
                  <td class="num">{t.errors}</td><td class="num">{t.restarts}</td>
                  <td class="small">{t.error || t.last_errors.at(-1) || ""}</td>
                </tr>
              ))}
              {info.unreachable.map(([t, why]) => <tr key={t}><td>{t}</td><td class="error" colSpan={6}>did not answer: {why}</td></tr>)}
            </tbody>
          </table>
          {info.spec && <pre class="preview-text small" data-testid="etl-detail-spec">{JSON.stringify(info.spec, null, 2)}</pre>}
        </>
      )}
      {logs && (
        <div data-testid="etl-logs">
          {logs.length === 0 && <p class="dim">no log</p>}
          {logs.map((l) => (
            <details key={l.target} open>
              <summary>{l.target} stderr</summary>
              <pre class="preview-text small">{l.log || "(empty)"}</pre>
            </details>
          ))}
        </div>
      )}
    </section>
  );
}

export function Etl({ s, selected }: { s: State; selected: string }) {
  const [etls, setEtls] = useState<admin.EtlInfo[] | null>(null);
  const [error, setError] = useState("");
  const [forbidden, setForbidden] = useState(false);  // ETL is for admins: the forms would only be refused
  const [tick, setTick] = useState(0);
  const reload = () => {
    admin.listEtls().then((l) => { setEtls(l.sort((a, b) => a.name.localeCompare(b.name))); setError(""); setForbidden(false); })
      .catch((e) => {
        setError((e as Error).message);
        setForbidden(e instanceof api.ApiError && e.status === 403);
      });
  };
  // The feed's events are newest first: an etl_* event newer than the last
  // one seen reads the list again (started, stopped, removed, a restart).
  const lastEtlEvent = s.events.find((e) => e.kind.startsWith("etl_"));
  const eventKey = lastEtlEvent ? `${lastEtlEvent.ts}/${lastEtlEvent.kind}/${lastEtlEvent.message}` : "";
  useEffect(reload, [eventKey]);
  return (
    <div class="page etl">
      <h2>ETL</h2>
      <p class="dim">Transformers run next to the data on every target: read an object through one
        (<code>GET …?etl_name=</code>), or pass a bucket through one into another bucket.</p>
      {forbidden ? (
        <p class="card warn" role="alert">Only an admin works with ETL{api.currentSession() ? `; you are signed in as ${api.currentSession()!.user}` : ""}.
          The cluster answered: <span data-testid="etl-error">{error}</span></p>
      ) : error && <p class="error" role="alert" data-testid="etl-error">{error}</p>}
      {!forbidden && (<>
        <div class="etl-layout">
          <section class="etl-list">
            <table class="grid" data-testid="etl-table">
              <thead><tr><th>transformer</th><th>mode</th><th>stage</th><th class="num">objects</th><th class="num">in</th><th class="num">out</th><th class="num">errors</th></tr></thead>
              <tbody>
                {(etls ?? []).map((e) => (
                  <tr key={e.name} data-etl={e.name} data-stage={e.stage} class={e.name === selected ? "selected" : ""}>
                    <td><a href={href("etl", e.name)}>{e.name}</a></td>
                    <td>{e.communication}</td>
                    <td><span class={`badge stage-${e.stage}`}>{e.stage}</span></td>
                    <td class="num">{e.objects_in}</td>
                    <td class="num">{fmt.bytes(e.bytes_in)}</td>
                    <td class="num">{fmt.bytes(e.bytes_out)}</td>
                    <td class="num">{e.errors}</td>
                  </tr>
                ))}
                {etls !== null && etls.length === 0 && <tr><td colSpan={7} class="dim">no transformer on the cluster: init one below</td></tr>}
                {etls === null && !error && <tr><td colSpan={7} class="dim">reading…</td></tr>}
              </tbody>
            </table>
            {selected && <EtlDetail key={selected} name={selected} tick={tick} onChanged={reload} />}
          </section>
          <EtlRun etls={etls ?? []} selected={selected} onEnded={() => { reload(); setTick((t) => t + 1); }} />
        </div>
        <EtlCompose onStarted={(info) => { reload(); navigate(href("etl", info.name)); }} />
      </>)}
    </div>
  );
}

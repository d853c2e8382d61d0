// Dashboard: the cluster's GET/PUT throughput, ops/s, p99 latency and
// errors/s live from the feed (history kept while the tab is open), a card
// per node (state, uptime, CPU, memory, ops/s, capacity per mountpath),
// and the recent events.
import { useState } from "preact/hooks";
import * as fmt from "../format";
import { NodeState, State } from "../feed";
import { href } from "../route";
import { Chart } from "./chart";

export function CapacityBar({ used, path, state }: { used: number; path: string; state: string }) {
  const level = used >= 95 ? "full" : used >= 85 ? "warn" : "ok";
  return (
    <div class="capacity" title={`${path}: ${fmt.percent(used)} used (${state})`}>
      <span class="capacity-path"><bdi>{path}</bdi></span>
      <meter class={`capacity-meter ${level}`} min={0} max={100} low={85} high={95} optimum={0} value={used} />
      <span class="capacity-pct">{fmt.percent(used)}</span>
    </div>
  );
}

export function NodeCard({ n }: { n: NodeState }) {
  const m = n.metrics;
  let ops = 0;
  if (m) for (const r of Object.values(m.ops)) ops += r.ops_s;
  return (
    <a class={`card node-card node-${n.state}`} href={href("nodes", n.id)} data-testid="node-card" data-node={n.id}>
      <div class="card-head">
        <strong>{n.id}</strong> <span class="role">{n.role}</span>
        <span class={`badge state-${n.state}`}>{n.state}</span>
      </div>
      {m ? (
        <dl class="kv">
          <dt>uptime</dt><dd>{fmt.duration(m.uptime_ns)}</dd>
          <dt>CPU</dt><dd>{fmt.percent(m.cpu_percent)}</dd>
          <dt>memory</dt><dd>{fmt.bytes(m.rss_bytes)}</dd>
          <dt>ops/s</dt><dd>{fmt.count(ops)}</dd>
        </dl>
      ) : <p class="dim">no metrics yet</p>}
      {m?.mountpaths.map((mp) => <CapacityBar key={mp.path} used={mp.used_percent} path={mp.path} state={mp.state} />)}
    </a>
  );
}

export function Dashboard({ s, v }: { s: State; v: number }) {
  const last = s.latest;
  const get = last?.cluster.get;
  const put = last?.cluster.put;
  const nodes = [...s.nodes.values()].sort((a, b) => (a.role === b.role ? a.id.localeCompare(b.id) : a.role === "proxy" ? -1 : 1));
  // Events filtered by severity (all, warnings and errors, errors only) and by text (kind, node, message).
  const [severity, setSeverity] = useState("all");
  const [text, setText] = useState("");
  const rank: Record<string, number> = { info: 0, notice: 0, warning: 1, error: 2 };
  const minRank = severity === "errors" ? 2 : severity === "warnings" ? 1 : 0;
  const needle = text.trim().toLowerCase();
  const events = s.events.filter((e) => (rank[e.severity] ?? 0) >= minRank &&
    (!needle || `${e.kind} ${e.node} ${e.message}`.toLowerCase().includes(needle)));
  return (
    <div class="page dashboard">
      <h2>Dashboard</h2>
      <div class="stats" data-testid="cluster-stats">
        <div class="stat"><span>GET</span><strong data-testid="get-rate">{fmt.rate(get?.bytes_s ?? 0)}</strong><small>{fmt.count(get?.ops_s ?? 0)} ops/s</small></div>
        <div class="stat"><span>PUT</span><strong data-testid="put-rate">{fmt.rate(put?.bytes_s ?? 0)}</strong><small>{fmt.count(put?.ops_s ?? 0)} ops/s</small></div>
        <div class="stat"><span>p99 GET / PUT</span><strong>{fmt.latency(get?.p99_ns ?? 0)} / {fmt.latency(put?.p99_ns ?? 0)}</strong></div>
        <div class="stat"><span>nodes</span><strong>{s.smap ? s.smap.targets.length : "—"} targets</strong><small>{last?.stale ?? 0} stale · ticks {s.ticks}</small></div>
      </div>
      <div class="charts">
        <Chart title="Throughput" testId="chart-throughput" series={s.cluster} columns={[0, 1]} labels={["GET", "PUT"]} format={fmt.rate} version={v} />
        <Chart title="Operations/s" testId="chart-ops" series={s.cluster} columns={[2, 3]} labels={["GET", "PUT"]} format={fmt.count} version={v} />
        <Chart title="p99 latency" testId="chart-latency" series={s.cluster} columns={[4, 5]} labels={["GET", "PUT"]} format={(ms) => fmt.latency(ms * 1e6)} version={v} />
        <Chart title="Errors/s" testId="chart-errors" series={s.cluster} columns={[6, 7]} labels={["errors", "client aborts"]} format={fmt.count} version={v} />
      </div>
      <h3>Nodes</h3>
      <div class="cards">{nodes.map((n) => <NodeCard key={n.id} n={n} />)}</div>
      <div class="row events-head">
        <h3>Events</h3>
        <select aria-label="event severity" value={severity} onChange={(e) => setSeverity((e.target as HTMLSelectElement).value)}>
          <option value="all">all</option>
          <option value="warnings">warnings and errors</option>
          <option value="errors">errors only</option>
        </select>
        <input type="search" aria-label="filter events" placeholder="kind, node or text" value={text} onInput={(e) => setText((e.target as HTMLInputElement).value)} />
      </div>
      <ul class="events" data-testid="events">
        {events.slice(0, 100).map((e, i) => (
          <li key={i} class={`sev-${e.severity}`}><time>{fmt.clock(e.ts)}</time> <b>{e.kind}</b> {e.message}</li>
        ))}
        {events.length === 0 && <li class="dim">{s.events.length ? "no event matches" : "no events"}</li>}
      </ul>
    </div>
  );
}

// Nodes: every node in a table (role, state, uptime, CPU, memory, capacity,
// ops/s); the selected one (its URL: /console/nodes/<id>) with its own
// charts and mountpaths. A node gone from the map stays listed as `gone`
// for 10 minutes.
import * as fmt from "../format";
import { State } from "../feed";
import { href } from "../route";
import { Chart } from "./chart";
import { CapacityBar } from "./dashboard";

export function Nodes({ s, v, selected }: { s: State; v: number; selected: string }) {
  const nodes = [...s.nodes.values()].sort((a, b) => (a.role === b.role ? a.id.localeCompare(b.id) : a.role === "proxy" ? -1 : 1));
  const sel = selected ? s.nodes.get(selected) : undefined;
  return (
    <div class="page nodes">
      <h2>Nodes</h2>
      <table class="grid" data-testid="nodes-table">
        <thead><tr><th>node</th><th>role</th><th>state</th><th>uptime</th><th>CPU</th><th>memory</th><th>capacity</th><th>ops/s</th><th>URL</th></tr></thead>
        <tbody>
          {nodes.map((n) => {
            const m = n.metrics;
            let ops = 0;
            if (m) for (const r of Object.values(m.ops)) ops += r.ops_s;
            const worst = m?.mountpaths.reduce((w, mp) => Math.max(w, mp.used_percent), 0) ?? 0;
            return (
              <tr key={n.id} class={n.id === selected ? "selected" : ""} data-node={n.id} data-state={n.state}>
                <td><a href={href("nodes", n.id)}>{n.id}</a></td>
                <td>{n.role}</td>
                <td><span class={`badge state-${n.state}`}>{n.state}</span></td>
                <td>{m ? fmt.duration(m.uptime_ns) : "—"}</td>
                <td class="num">{m ? fmt.percent(m.cpu_percent) : "—"}</td>
                <td class="num">{m ? fmt.bytes(m.rss_bytes) : "—"}</td>
                <td class="num">{m && m.mountpaths.length ? fmt.percent(worst) : "—"}</td>
                <td class="num">{m ? fmt.count(ops) : "—"}</td>
                <td class="dim">{n.url}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {sel && (
        <section class="node-detail" data-testid="node-detail">
          <h3>{sel.id} <span class={`badge state-${sel.state}`}>{sel.state}</span></h3>
          <div class="charts">
            <Chart key={sel.id + "t"} title="Throughput" series={sel.history} columns={[0, 1]} labels={["GET", "PUT"]} format={fmt.rate} version={v} />
            <Chart key={sel.id + "o"} title="Operations/s and CPU %" series={sel.history} columns={[2, 3]} labels={["ops/s", "CPU %"]} format={fmt.count} version={v} />
          </div>
          {sel.metrics && sel.metrics.mountpaths.length > 0 && <h3>Mountpaths</h3>}
          {sel.metrics?.mountpaths.map((mp) => (
            <div key={mp.path}>
              <CapacityBar used={mp.used_percent} path={mp.path} state={mp.state} />
              <p class="dim small">{fmt.bytes(mp.used)} of {fmt.bytes(mp.total)} used, {fmt.bytes(mp.available)} free{mp.objects != null ? `, ${mp.objects} objects` : ""}</p>
            </div>
          ))}
        </section>
      )}
    </div>
  );
}

// The live feed (/v1/ws on the page's own origin, which the proxy allows):
// the snapshot first, then metrics, map changes, buckets, jobs and events.
// Reconnects with exponential backoff (0.5 s doubling to 15 s, with
// jitter) and says so in `status`; every reconnect re-reads the snapshot.
// With auth on the browser cannot put a token on a WebSocket upgrade (no
// headers), so the page offers it as a subprotocol instead: the list
// ["tessera.feed.v1", "tessera.bearer.<access token>"]; the proxy verifies
// the token like a header one and selects tessera.feed.v1. When the access
// token is refreshed (or the user signs in again) the feed reconnects with
// the new one. An upgrade refused while signed in checks the session over
// REST (which refreshes the token, or shows the sign-in form); only a feed
// refused though the token is good (a proxy that does not read the
// subprotocol) falls back to polling the REST API.
import * as d from "./decode";
import { Series } from "./history";
import * as api from "./api";

export type FeedStatus = "connecting" | "live" | "retrying" | "polling";

export interface NodeState {
  id: string;
  role: string;
  url: string;
  state: string;  // online | stale | away | maintenance | decommissioning | gone
  metrics: d.NodeMetrics | null;
  goneAt: number;
  history: Series;  // get B/s, put B/s, ops/s, cpu %
}

export interface State {
  status: FeedStatus;
  statusText: string;
  retryAt: number;
  smap: d.Smap | null;
  nodes: Map<string, NodeState>;
  cluster: Series;  // get B/s, put B/s, get ops, put ops, get p99 ms, put p99 ms, errors/s, aborts/s
  latest: d.Metrics | null;
  jobs: Map<string, d.Job>;
  events: d.FeedEvent[];
  buckets: Map<string, d.BucketInfo>;
  bmdVersion: number;
  ticks: number;
}

export const kGoneRetentionMs = 10 * 60 * 1000;
const kMaxEvents = 200;

function newState(): State {
  return {
    status: "connecting", statusText: "connecting to the feed", retryAt: 0, smap: null, nodes: new Map(),
    cluster: new Series(["GET B/s", "PUT B/s", "GET ops/s", "PUT ops/s", "GET p99 ms", "PUT p99 ms", "errors/s", "aborts/s"]),
    latest: null, jobs: new Map(), events: [], buckets: new Map(), bmdVersion: 0, ticks: 0,
  };
}

export const state: State = newState();
const listeners = new Set<() => void>();
let version = 0;
let notifyQueued = false;

export function subscribe(l: () => void): () => void {
  listeners.add(l);
  return () => void listeners.delete(l);
}
export function stateVersion(): number {
  return version;
}
function changed(): void {
  version++;
  if (notifyQueued) return;
  notifyQueued = true;
  // One repaint per frame at most, whatever the feed's rate.
  requestAnimationFrame(() => {
    notifyQueued = false;
    listeners.forEach((l) => l());
  });
}

function targetState(n: d.Snode): string {
  if (n.flags & d.kFlagDecommissioning) return "decommissioning";
  if (n.flags & d.kFlagMaintenance) return "maintenance";
  if (n.flags & d.kFlagAway) return "away";
  return "online";
}

function applySmap(m: d.Smap): void {
  state.smap = m;
  const present = new Set<string>();
  for (const n of [...m.proxies, ...m.targets]) {
    present.add(n.id);
    let s = state.nodes.get(n.id);
    if (!s) {
      s = { id: n.id, role: n.role, url: n.url, state: "online", metrics: null, goneAt: 0,
        history: new Series(["GET B/s", "PUT B/s", "ops/s", "CPU %"]) };
      state.nodes.set(n.id, s);
    }
    s.url = n.url;
    s.goneAt = 0;
    s.state = n.role === "target" ? targetState(n) : "online";
  }
  const now = Date.now();
  for (const s of state.nodes.values()) {
    if (!present.has(s.id) && s.state !== "gone") {
      s.state = "gone";
      s.goneAt = now;
    }
  }
  pruneGone(now);
}

function pruneGone(now: number): void {
  for (const [id, s] of state.nodes) if (s.state === "gone" && now - s.goneAt > kGoneRetentionMs) state.nodes.delete(id);
}

function applyMetrics(m: d.Metrics): void {
  state.latest = m;
  state.ticks++;
  const get = m.cluster.get ?? d.opRates({});
  const put = m.cluster.put ?? d.opRates({});
  let errors = 0;
  let aborts = 0;
  for (const n of m.nodes) for (const r of Object.values(n.ops)) {
    errors += r.errors_s;
    aborts += r.aborts_s;
  }
  state.cluster.push(m.ts, [get.bytes_s, put.bytes_s, get.ops_s, put.ops_s, get.p99_ns / 1e6, put.p99_ns / 1e6, errors, aborts]);
  for (const nm of m.nodes) {
    const s = state.nodes.get(nm.id);
    if (!s) continue;
    s.metrics = nm;
    if (s.state === "online" || s.state === "stale") s.state = nm.stale ? "stale" : "online";
    let ops = 0;
    for (const r of Object.values(nm.ops)) ops += r.ops_s;
    s.history.push(m.ts, [nm.ops.get?.bytes_s ?? 0, nm.ops.put?.bytes_s ?? 0, ops, nm.cpu_percent]);
  }
  pruneGone(Date.now());
}

function applyBuckets(list: unknown): void {
  state.buckets = new Map(d.arr(list).map((b) => {
    const bi = d.bucketInfo(b);
    return [bi.name, bi] as [string, d.BucketInfo];
  }));
}

function pushEvent(e: d.FeedEvent): void {
  state.events.unshift(e);
  if (state.events.length > kMaxEvents) state.events.length = kMaxEvents;
}

function onMessage(text: string): void {
  let msg: d.Obj;
  try {
    msg = d.obj(JSON.parse(text));
  } catch {
    return;
  }
  const data = d.obj(msg.data);
  const ts = d.num(msg.ts, Date.now());
  switch (d.str(msg.type)) {
  case "snapshot": {
    applySmap(d.smap(data.smap));
    state.bmdVersion = d.num(data.bmd_version);
    applyBuckets(data.buckets);
    // The snapshot holds the running jobs only: merge them, and read the
    // list (ended ones too, and the final state of those that ended while
    // the feed was down) from the REST API.
    for (const j of d.arr(data.jobs).map(d.job)) state.jobs.set(j.id, j);
    api.listJobs().then((js) => {
      js.forEach((j) => state.jobs.set(j.id, j));
      changed();
    }).catch(() => undefined);
    const seen = new Set(state.events.map((e) => `${e.ts}|${e.kind}|${e.message}`));
    for (const e of d.arr(data.events).map(d.feedEvent)) if (!seen.has(`${e.ts}|${e.kind}|${e.message}`)) pushEvent(e);
    state.events.sort((a, b) => b.ts - a.ts);
    if (Object.keys(d.obj(data.metrics)).length) applyMetrics(d.metrics(data.metrics, ts));
    break;
  }
  case "metrics":
    applyMetrics(d.metrics(data, ts));
    break;
  case "smap":
    applySmap(d.smap(data));
    break;
  case "bmd":
    state.bmdVersion = d.num(data.version);
    applyBuckets(data.buckets);
    break;
  case "buckets":
    applyBuckets(data.buckets);
    break;
  case "job": {
    const j = d.job(data);
    state.jobs.set(j.id, j);
    break;
  }
  case "event":
    pushEvent(d.feedEvent(data));
    break;
  default:
    return;
  }
  changed();
}

let socket: WebSocket | null = null;
let socketToken = "";  // the access token the current socket offered ("" without auth)
let attempt = 0;
let retryTimer = 0;
let pollTimer = 0;
let started = false;

function setStatus(s: FeedStatus, text: string, retryAt = 0): void {
  state.status = s;
  state.statusText = text;
  state.retryAt = retryAt;
  changed();
}

export const kFeedProtocol = "tessera.feed.v1";
const kBearerProtocol = "tessera.bearer.";

// The subprotocols a feed upgrade offers: the feed's, and the access token
// when signed in.
export function feedProtocols(token: string): string[] {
  return token ? [kFeedProtocol, kBearerProtocol + token] : [kFeedProtocol];
}

function retryLater(reason: string): void {
  const delay = Math.min(15000, 500 * 2 ** attempt) * (0.75 + Math.random() * 0.5);
  attempt++;
  const why = reason ? `: ${reason}` : "";
  setStatus("retrying", `feed lost${why}; reconnecting`, Date.now() + delay);
  retryTimer = window.setTimeout(connect, delay);
}

// An upgrade refused while signed in: is the token still good? The REST
// call refreshes it on a 401 (the session listener then reconnects with the
// new one) or ends the session (the sign-in form shows).
function refusedWhileSignedIn(reason: string): void {
  api.checkSession().then((ok) => {
    if (socket !== null || retryTimer || pollTimer) return;  // reconnected meanwhile
    if (!ok || api.currentSession()?.tokens.token !== socketToken) return;
    if (attempt >= 2) {
      // The token is good and the feed still refuses it: a proxy that does
      // not take the token as a subprotocol.
      startPolling();
      return;
    }
    retryLater(reason);
  }).catch(() => {
    if (socket === null && !retryTimer && !pollTimer) retryLater(reason);  // the proxy is unreachable
  });
}

function connect(): void {
  retryTimer = 0;
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/v1/ws`;
  let opened = false;
  socketToken = api.currentSession()?.tokens.token ?? "";
  const ws = new WebSocket(url, feedProtocols(socketToken));
  socket = ws;
  ws.onopen = () => {
    opened = true;
    attempt = 0;
    setStatus("live", "live");
  };
  ws.onmessage = (e) => {
    if (typeof e.data === "string") onMessage(e.data);
  };
  ws.onclose = (e) => {
    if (socket !== ws) return;
    socket = null;
    if (!opened && api.currentSession()) {
      attempt++;
      refusedWhileSignedIn(e.reason);
      return;
    }
    retryLater(e.reason);
  };
}

async function poll(): Promise<void> {
  if (!api.currentSession()) {
    // Signed out or expired: the sign-in form shows; signing in reconnects.
    window.clearInterval(pollTimer);
    pollTimer = 0;
    return;
  }
  try {
    applySmap(await api.clusterSmap());
    state.jobs = new Map((await api.listJobs().catch(() => [])).map((j) => [j.id, j]));
    setStatus("polling", "live feed refused though signed in; polling every 5 s");
  } catch (e) {
    setStatus("polling", `polling failed: ${(e as Error).message}`);
  }
}
function startPolling(): void {
  if (pollTimer) return;
  void poll();
  pollTimer = window.setInterval(() => void poll(), 5000);
}

// A new access token (refreshed, or a new sign-in) reconnects with it;
// signing out closes the feed.
function onSessionChange(): void {
  if (!started) return;
  const token = api.currentSession()?.tokens.token ?? "";
  if (token === socketToken) return;
  if (!token && socketToken) {
    stop();
    socketToken = "";
    return;
  }
  reconnectNow();
}

function stop(): void {
  window.clearTimeout(retryTimer);
  retryTimer = 0;
  window.clearInterval(pollTimer);
  pollTimer = 0;
  if (socket) {
    const s = socket;
    socket = null;
    s.close();
  }
}

export function start(): void {
  if (started) return;
  started = true;
  api.onSessionChange(onSessionChange);
  connect();
}

// Reconnect now (a click on the status).
export function reconnectNow(): void {
  if (!started) {
    start();
    return;
  }
  stop();
  attempt = 0;
  setStatus("connecting", "connecting to the feed");
  connect();
}

// After signing in: connected with the current token, or connect now.
export function ensureConnected(): void {
  if (started && socket && socketToken === (api.currentSession()?.tokens.token ?? "")) return;
  reconnectNow();
}

// Jobs and events may also be set by REST answers (an abort, a list).
export function putJob(j: d.Job): void {
  state.jobs.set(j.id, j);
  changed();
}

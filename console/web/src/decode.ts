// Tolerant readers of the wire shapes: the REST API and the feed send JSON
// that may carry a number as a string (AIStore's `size`, `version`) or omit
// a field. Every reader returns a value of the named type, never throws.

export type Json = unknown;
export type Obj = Record<string, unknown>;

export function obj(v: Json): Obj {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {};
}
export function arr(v: Json): unknown[] {
  return Array.isArray(v) ? v : [];
}
export function num(v: Json, dflt = 0): number {
  if (typeof v === "number" && Number.isFinite(v)) return v;
  if (typeof v === "string" && v.trim() !== "") {
    const n = Number(v);
    if (Number.isFinite(n)) return n;
  }
  return dflt;
}
export function str(v: Json, dflt = ""): string {
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return dflt;
}
export function bool(v: Json): boolean {
  return v === true || v === "true";
}

export interface OpRates {
  ops_s: number;
  bytes_s: number;
  errors_s: number;
  aborts_s: number;
  p50_ns: number;
  p90_ns: number;
  p99_ns: number;
  n: number;
  errors: number;
}
export function opRates(v: Json): OpRates {
  const o = obj(v);
  return {
    ops_s: num(o.ops_s), bytes_s: num(o.bytes_s), errors_s: num(o.errors_s), aborts_s: num(o.aborts_s),
    p50_ns: num(o.p50_ns), p90_ns: num(o.p90_ns), p99_ns: num(o.p99_ns), n: num(o.n), errors: num(o.errors),
  };
}

export interface Mountpath {
  path: string;
  total: number;
  used: number;
  available: number;
  used_percent: number;
  state: string;
  objects: number | null;
}
export function mountpath(v: Json): Mountpath {
  const o = obj(v);
  return {
    path: str(o.path), total: num(o.total), used: num(o.used), available: num(o.available),
    used_percent: num(o.used_percent), state: str(o.state, "ok"), objects: o.objects === undefined ? null : num(o.objects),
  };
}

export interface NodeMetrics {
  id: string;
  role: string;
  stale: boolean;
  age_ms: number;
  cpu_percent: number;
  rss_bytes: number;
  connections: number;
  uptime_ns: number;
  ops: Record<string, OpRates>;
  mountpaths: Mountpath[];
}
export function nodeMetrics(v: Json): NodeMetrics {
  const o = obj(v);
  const ops: Record<string, OpRates> = {};
  for (const [k, r] of Object.entries(obj(o.ops))) ops[k] = opRates(r);
  return {
    id: str(o.daemon_id), role: str(o.role), stale: bool(o.stale), age_ms: num(o.age_ms),
    cpu_percent: num(o.cpu_percent), rss_bytes: num(o.rss_bytes), connections: num(o.connections),
    uptime_ns: num(o.uptime_ns), ops, mountpaths: arr(o.mountpaths).map(mountpath),
  };
}

export interface Metrics {
  ts: number;
  interval_ms: number;
  cluster: Record<string, OpRates>;
  stale: number;
  nodes: NodeMetrics[];
}
export function metrics(v: Json, ts: number): Metrics {
  const o = obj(v);
  const c = obj(o.cluster);
  const cluster: Record<string, OpRates> = {};
  for (const [k, r] of Object.entries(obj(c.ops))) cluster[k] = opRates(r);
  return { ts, interval_ms: num(o.interval_ms, 1000), cluster, stale: num(c.stale), nodes: arr(o.nodes).map(nodeMetrics) };
}

export interface Snode {
  id: string;
  role: string;
  url: string;
  flags: number;
}
export interface Smap {
  version: number;
  proxies: Snode[];
  targets: Snode[];
}
function snode(v: Json, role: string): Snode {
  const o = obj(v);
  const net = obj(o.public_net);
  return { id: str(o.daemon_id), role: str(o.daemon_type, role), url: str(net.direct_url), flags: num(o.flags) };
}
export function smap(v: Json): Smap {
  const o = obj(v);
  return {
    version: num(o.version),
    proxies: Object.values(obj(o.pmap)).map((n) => snode(n, "proxy")),
    targets: Object.values(obj(o.tmap)).map((n) => snode(n, "target")),
  };
}
// Flags of a target in the cluster map (docs/api.md, cluster actions).
export const kFlagAway = 0x10000;
export const kFlagMaintenance = 0x20000;
export const kFlagDecommissioning = 0x40000;

export interface Progress {
  objects_done: number;
  objects_total: number;
  bytes_done: number;
  bytes_total: number;
  errors: number;
}
export interface Job {
  id: string;
  kind: string;
  state: string;
  phase: string;
  progress: Progress;
  started_ns: number;
  ended_ns: number;
  error: string;
  abort_requested: boolean;
  targets: { id: string; state: string; phase: string; progress: Progress; error: string }[];
}
function progress(v: Json): Progress {
  const o = obj(v);
  return {
    objects_done: num(o.objects_done), objects_total: num(o.objects_total, -1), bytes_done: num(o.bytes_done),
    bytes_total: num(o.bytes_total, -1), errors: num(o.errors),
  };
}
export function job(v: Json): Job {
  const o = obj(v);
  return {
    id: str(o.id), kind: str(o.kind), state: str(o.state), phase: str(o.phase), progress: progress(o.progress),
    started_ns: num(o.started_ns), ended_ns: num(o.ended_ns), error: str(o.error),
    abort_requested: bool(o.abort_requested),
    targets: Object.entries(obj(o.targets)).map(([id, t]) => {
      const to = obj(t);
      return { id, state: str(to.state), phase: str(to.phase), progress: progress(to.progress), error: str(to.error) };
    }),
  };
}

export interface FeedEvent {
  ts: number;
  severity: string;
  kind: string;
  node: string;
  message: string;
}
export function feedEvent(v: Json): FeedEvent {
  const o = obj(v);
  return { ts: num(o.ts), severity: str(o.severity, "info"), kind: str(o.kind), node: str(o.node), message: str(o.message) };
}

export interface BucketInfo {
  name: string;
  objects: number | null;
  bytes: number | null;
  scanned_ns: number;  // the oldest of the targets' usage scans; 0 before every target scanned
}
export function bucketInfo(v: Json): BucketInfo {
  const o = obj(v);
  return {
    name: str(o.name), objects: o.objects === undefined ? null : num(o.objects),
    bytes: o.bytes === undefined ? null : num(o.bytes), scanned_ns: num(o.usage_scanned_ns),
  };
}

export interface Entry {
  name: string;
  size: number;
  version: string;
  flags: number;
}
export interface ListPage {
  entries: Entry[];
  token: string;
}
export function listPage(v: Json): ListPage {
  const o = obj(v);
  return {
    token: str(o.continuation_token),
    entries: arr(o.entries).map((e) => {
      const eo = obj(e);
      return { name: str(eo.name), size: num(eo.size), version: str(eo.version), flags: num(eo.flags) };
    }),
  };
}
// Listing entry flags (AIStore's): a shard member, a shard.
export const kEntryInArch = 128;
export const kEntryIsArchive = 512;

export interface TokenPair {
  token: string;
  expires_at: number;
  refresh_token: string;
  refresh_expires_at: number;
}
export function tokenPair(v: Json): TokenPair {
  const o = obj(v);
  return {
    token: str(o.token), expires_at: num(o.expires_at), refresh_token: str(o.refresh_token),
    refresh_expires_at: num(o.refresh_expires_at),
  };
}

// A bucket's properties as HEAD /v1/buckets/<b> answers them: AIStore's
// whole Bprops document in `ais-bucket-props` and Tessera's own fields
// (across_targets, pending) in `tessera-bucket-props-ext` (docs/api.md).
export interface BucketProps {
  created_ns: number;
  checksum: string;
  validate_warm_get: boolean;
  versioning: boolean;
  mirror: { enabled: boolean; copies: number; across_targets: boolean; pending: boolean };
  ec: { enabled: boolean; data_slices: number; parity_slices: number; objsize_limit: number; pending: boolean };
}
function parseHeaderJson(text: string | null): Obj {
  if (!text) return {};
  try {
    return obj(JSON.parse(text));
  } catch {
    return {};
  }
}
export function bucketProps(aisProps: string | null, ext: string | null): BucketProps {
  const a = parseHeaderJson(aisProps);
  const x = parseHeaderJson(ext);
  const mirror = obj(a.mirror);
  const ec = obj(a.ec);
  const ck = obj(a.checksum);
  return {
    created_ns: num(a.created),
    checksum: str(ck.type),
    validate_warm_get: bool(ck.validate_warm_get),
    versioning: bool(obj(a.versioning).enabled),
    mirror: {
      enabled: bool(mirror.enabled), copies: num(mirror.copies, 1),
      across_targets: bool(obj(x.mirror).across_targets), pending: bool(obj(x.mirror).pending),
    },
    ec: {
      enabled: bool(ec.enabled), data_slices: num(ec.data_slices), parity_slices: num(ec.parity_slices),
      objsize_limit: num(ec.objsize_limit), pending: bool(obj(x.ec).pending),
    },
  };
}

// The protection a bucket's properties ask for, in words.
export function protectionWords(p: BucketProps): string {
  if (p.ec.enabled) {
    return `erasure coded: ${p.ec.data_slices} data + ${p.ec.parity_slices} parity slices (any ${p.ec.parity_slices} ` +
      `target${p.ec.parity_slices === 1 ? "" : "s"} may be lost)`;
  }
  if (p.mirror.enabled && p.mirror.copies > 1) {
    return `${p.mirror.copies} copies ${p.mirror.across_targets ? "across targets" : "on the mountpaths of each target"}`;
  }
  return "one copy (no mirroring, no erasure coding)";
}

export interface Who {
  name: string;
  admin: boolean;
  grants: { bucket: string; permissions: string[] }[];
}
export function who(v: Json): Who {
  const o = obj(v);
  return {
    name: str(o.name), admin: bool(o.admin),
    grants: arr(o.grants).map((g) => ({ bucket: str(obj(g).bucket), permissions: arr(obj(g).permissions).map((p) => str(p)) })),
  };
}
// What `w` may do on `bucket`: every permission for an admin, else the
// union of its grants on the bucket and on "*", in the API's order.
export function permissionsOn(w: Who, bucket: string): string[] {
  const all = ["read", "list", "write", "delete", "admin-bucket"];
  if (w.admin) return all;
  const held = new Set<string>();
  for (const g of w.grants) if (g.bucket === bucket || g.bucket === "*") g.permissions.forEach((p) => held.add(p));
  return all.filter((p) => held.has(p));
}

// The ETL and access calls of the REST API (docs/etl.md, docs/api.md#auth),
// with the decoders of their answers. Every call goes through api.call, so a
// 401 refreshes the session once and a refusal is an ApiError carrying the
// proxy's message.
import * as api from "./api";
import * as d from "./decode";

const enc = (s: string) => encodeURIComponent(s);
const jsonBody = (v: unknown): RequestInit => ({
  headers: { "Content-Type": "application/json" },
  body: JSON.stringify(v),
});

// ---- ETL -------------------------------------------------------------------
export interface EtlInfo {
  name: string;
  communication: string;
  stage: string;  // running | stopped | starting | error
  objects_in: number;
  bytes_in: number;
  bytes_out: number;
  errors: number;
}
export interface EtlTarget {
  target: string;
  stage: string;
  pid: number;
  objects_in: number;
  errors: number;
  restarts: number;
  error: string;
  last_errors: string[];
}
export interface EtlDetail extends EtlInfo {
  spec: d.Obj | null;
  targets: EtlTarget[];
  unreachable: [string, string][];
}

export function etlInfo(v: unknown): EtlInfo {
  const o = d.obj(v);
  return {
    name: d.str(o.name), communication: d.str(o.communication), stage: d.str(o.stage),
    objects_in: d.num(o.objects_in), bytes_in: d.num(o.bytes_in), bytes_out: d.num(o.bytes_out), errors: d.num(o.errors),
  };
}
export function etlDetail(v: unknown): EtlDetail {
  const o = d.obj(v);
  const targets = Object.entries(d.obj(o.targets)).map(([id, t]) => {
    const x = d.obj(t);
    return {
      target: d.str(x.target, id), stage: d.str(x.stage), pid: d.num(x.pid), objects_in: d.num(x.objects_in),
      errors: d.num(x.errors), restarts: d.num(x.restarts), error: d.str(x.error),
      last_errors: d.arr(x.last_errors).map((e) => d.str(e)),
    };
  });
  const spec = o.spec && typeof o.spec === "object" ? d.obj(o.spec) : null;
  const unreachable = Object.entries(d.obj(o.unreachable)).map(([k, why]) => [k, d.str(why)] as [string, string]);
  return { ...etlInfo(v), spec, targets, unreachable };
}

export async function listEtls(): Promise<EtlInfo[]> {
  return d.arr(await api.getJson("/v1/etl")).map(etlInfo);
}
export async function showEtl(name: string): Promise<EtlDetail> {
  return etlDetail(await api.getJson(`/v1/etl/${enc(name)}`));
}
export async function etlLogs(name: string): Promise<{ target: string; log: string }[]> {
  return d.arr(await api.getJson(`/v1/etl/${enc(name)}/logs`)).map((l) => ({ target: d.str(d.obj(l).target), log: d.str(d.obj(l).log) }));
}
// PUT /v1/etl: answers once every target runs it.
export async function initEtl(spec: d.Obj): Promise<EtlInfo> {
  return etlInfo(await api.getJson("/v1/etl", { method: "PUT", ...jsonBody(spec) }));
}
export async function setEtlRunning(name: string, running: boolean): Promise<void> {
  await api.call(`/v1/etl/${enc(name)}/${running ? "start" : "stop"}`, { method: "POST" });
}
export async function removeEtl(name: string): Promise<void> {
  await api.call(`/v1/etl/${enc(name)}`, { method: "DELETE" });
}

// The value of an etl-bck / etl-listrange action (docs/etl.md#offline).
export interface EtlBucketValue {
  id: string;
  prefix?: string;
  template?: string;
  ext?: Record<string, string>;
  dry_run?: boolean;
  continue_on_err?: boolean;
  per_sample?: boolean;
}
// POST /v1/buckets/SRC: the offline job; its status.
export async function etlBucket(src: string, dst: string, value: EtlBucketValue): Promise<d.Job> {
  const action = value.template ? "etl-listrange" : "etl-bck";
  return d.job(await api.getJson(`/v1/buckets/${enc(src)}`, { method: "POST", ...jsonBody({ action, name: dst, value }) }));
}
// "png:jpg, tar:tgz" -> {png: "jpg", tar: "tgz"}; null when a pair is malformed.
export function parseExt(text: string): Record<string, string> | null {
  const out: Record<string, string> = {};
  for (const pair of text.split(",").map((s) => s.trim()).filter(Boolean)) {
    const parts = pair.split(":").map((s) => s.trim());
    if (parts.length !== 2 || !parts[0] || !parts[1]) return null;
    out[parts[0]] = parts[1];
  }
  return out;
}

export async function job(id: string): Promise<d.Job> {
  return d.job(await api.getJson(`/v1/jobs/${enc(id)}`));
}

// ---- users, grants, S3 keys ---------------------------------------------------
export const kPermissions = ["read", "list", "write", "delete", "admin-bucket"];

export async function addUser(name: string, password: string, admin: boolean): Promise<void> {
  await api.call("/v1/users", { method: "POST", ...jsonBody({ name, password, admin }) });
}
export async function removeUser(name: string): Promise<void> {
  await api.call(`/v1/users/${enc(name)}`, { method: "DELETE" });
}
export async function grant(user: string, bucket: string, permissions: string[]): Promise<void> {
  await api.call(`/v1/users/${enc(user)}/grants`, { method: "POST", ...jsonBody({ bucket, permissions }) });
}
export async function revoke(user: string, bucket: string, permission: string): Promise<void> {
  await api.call(`/v1/users/${enc(user)}/grants/${enc(bucket)}/${enc(permission)}`, { method: "DELETE" });
}

export interface S3Key {
  access_key: string;
  user: string;
  description: string;
  created_at: number;  // unix seconds
}
export interface S3KeyCreated extends S3Key {
  secret_key: string;
}
function s3Key(v: unknown): S3Key {
  const o = d.obj(v);
  return { access_key: d.str(o.access_key), user: d.str(o.user), description: d.str(o.description), created_at: d.num(o.created_at) };
}
export async function listS3Keys(user: string): Promise<S3Key[]> {
  return d.arr(await api.getJson(`/v1/users/${enc(user)}/s3-keys`)).map(s3Key);
}
// The only answer that holds the secret: shown once, kept nowhere.
export async function createS3Key(user: string, description: string): Promise<S3KeyCreated> {
  const o = d.obj(await api.getJson(`/v1/users/${enc(user)}/s3-keys`, { method: "POST", ...jsonBody(description ? { description } : {}) }));
  return { ...s3Key(o), secret_key: d.str(o.secret_key) };
}
export async function deleteS3Key(user: string, key: string): Promise<void> {
  await api.call(`/v1/users/${enc(user)}/s3-keys/${enc(key)}`, { method: "DELETE" });
}

// What the server refuses in a new user, checked before it is sent (the same
// rules: shared/api/auth_msg.cpp validateUserName, daemon/auth/password_hash
// kMinPasswordBytes, auth_limits::kMaxPasswordBytes); the server still has
// the last word. Field -> message.
export const kMinPasswordBytes = 8;
export const kMaxPasswordBytes = 1024;
export const kMaxUserNameBytes = 64;
export function newUserErrors(name: string, password: string, repeated: string): Map<string, string> {
  const e = new Map<string, string>();
  const bytes = (s: string) => new TextEncoder().encode(s).length;
  if (!name || bytes(name) > kMaxUserNameBytes) e.set("name", `a user name is 1 to ${kMaxUserNameBytes} bytes`);
  else if (!/^[A-Za-z0-9._-]+$/.test(name)) e.set("name", "a user name holds only letters, digits, '.', '_' and '-'");
  if (bytes(password) < kMinPasswordBytes) e.set("password", `a password needs at least ${kMinPasswordBytes} bytes`);
  else if (bytes(password) > kMaxPasswordBytes) e.set("password", `a password is at most ${kMaxPasswordBytes} bytes`);
  else if (password !== repeated) e.set("repeated", "the two passwords differ");
  return e;
}
// A refusal of POST /v1/users on the field it is about.
export function userErrorField(message: string): string {
  if (/password/i.test(message)) return "password";
  if (/user name|\/name|exists/i.test(message)) return "name";
  return "";
}

// The REST API of the proxy this page came from (same origin), and object
// bytes through its S3 front end (/s3/<bucket>/<key>, relayed by the proxy:
// the native /v1/objects answers a 307 to a target on another origin, which
// a browser may not follow for a script without CORS on the targets).
import * as d from "./decode";

export class ApiError extends Error {
  constructor(public status: number, message: string) {
    super(message);
  }
}

const kTokenKey = "tessera.token";  // sessionStorage: gone with the tab

export interface Session {
  user: string;
  tokens: d.TokenPair;
}

let session: Session | null = loadSession();
const sessionListeners = new Set<() => void>();
let expiredFlag = false;

function loadSession(): Session | null {
  try {
    const raw = sessionStorage.getItem(kTokenKey);
    if (!raw) return null;
    const o = d.obj(JSON.parse(raw));
    return { user: d.str(o.user), tokens: d.tokenPair(o.tokens) };
  } catch {
    return null;
  }
}

export function currentSession(): Session | null {
  return session;
}
export function sessionExpired(): boolean {
  return expiredFlag;
}
export function onSessionChange(l: () => void): () => void {
  sessionListeners.add(l);
  return () => void sessionListeners.delete(l);
}
function setSession(s: Session | null, expired = false): void {
  session = s;
  expiredFlag = expired;
  if (s) sessionStorage.setItem(kTokenKey, JSON.stringify(s));
  else sessionStorage.removeItem(kTokenKey);
  sessionListeners.forEach((l) => l());
}

async function errorOf(r: Response): Promise<ApiError> {
  let message = `${r.status} ${r.statusText}`;
  try {
    const text = await r.text();
    const o = d.obj(JSON.parse(text));
    if (d.str(o.message)) message = d.str(o.message);
    else if (text) message = text.slice(0, 300);
  } catch {
    /* not JSON: the status says it */
  }
  return new ApiError(r.status, message);
}

function headers(extra?: HeadersInit): Headers {
  const h = new Headers(extra);
  if (session) h.set("Authorization", `Bearer ${session.tokens.token}`);
  return h;
}

let refreshing: Promise<boolean> | null = null;
async function refresh(): Promise<boolean> {
  if (!session) return false;
  if (!refreshing) {
    const s = session;
    refreshing = fetch("/v1/tokens/refresh", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ refresh_token: s.tokens.refresh_token }),
    })
      .then(async (r) => {
        if (!r.ok) return false;
        setSession({ user: s.user, tokens: d.tokenPair(await r.json()) });
        return true;
      })
      .catch(() => false)
      .finally(() => (refreshing = null));
  }
  return refreshing;
}

// After a 401 that was not a call() (an upload's XMLHttpRequest): true when
// the session's tokens were refreshed (send again), false when the session
// ended (the sign-in form shows).
export async function renewAfter401(): Promise<boolean> {
  if (!session) return false;
  if (await refresh()) return true;
  setSession(null, true);
  return false;
}

// A call to the proxy; a 401 with a session tries the refresh token once,
// then marks the session expired (the sign-in form shows).
export async function call(path: string, init: RequestInit = {}): Promise<Response> {
  let r = await fetch(path, { ...init, headers: headers(init.headers) });
  if (r.status === 401 && session) {
    if (await refresh()) r = await fetch(path, { ...init, headers: headers(init.headers) });
    if (r.status === 401) setSession(null, true);
  }
  if (!r.ok) throw await errorOf(r);
  return r;
}

export async function getJson(path: string, init?: RequestInit): Promise<unknown> {
  const r = await call(path, init);
  const text = await r.text();
  return text ? JSON.parse(text) : null;
}

export async function signIn(user: string, password: string): Promise<void> {
  const r = await fetch("/v1/tokens", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ user, password }),
  });
  if (!r.ok) throw await errorOf(r);
  setSession({ user, tokens: d.tokenPair(await r.json()) });
}

export async function signOut(): Promise<void> {
  const s = session;
  setSession(null);
  // The refresh token first (revoked with the access token still good),
  // then the access token: neither works anywhere afterwards.
  if (s) {
    for (const token of [s.tokens.refresh_token, s.tokens.token]) {
      if (!token) continue;
      await fetch("/v1/tokens", {
        method: "DELETE",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${s.tokens.token}` },
        body: JSON.stringify({ token }),
      }).catch(() => undefined);
    }
  }
}

// Whether the session's token is (still) good, refreshing it on a 401:
// true when it is (or was refreshed), false when the session ended (the
// sign-in form shows). Throws when the proxy cannot be reached.
export async function checkSession(): Promise<boolean> {
  if (!session) return false;
  try {
    await call("/v1/whoami");
    return true;
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return false;
    if (e instanceof ApiError) return true;  // the token was taken; the call failed for another reason
    throw e;
  }
}

// Whether the proxy wants a token: the cluster map without one is 401.
// Asked without the session's token, so that a tab reloaded while signed
// in still knows auth is on (and shows the sign-in form when it ends).
export async function authRequired(): Promise<boolean> {
  const r = await fetch("/v1/cluster?what=smap");
  return r.status === 401;
}

const enc = (s: string) => encodeURIComponent(s);
export const objectPath = (name: string) => name.split("/").map(enc).join("/");

export async function listBuckets(): Promise<string[]> {
  return d.arr(await getJson("/v1/buckets")).map((b) => d.str(d.obj(b).name)).filter(Boolean);
}
export async function createBucket(name: string): Promise<void> {
  await call(`/v1/buckets/${enc(name)}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ action: "create-bck" }),
  });
}
// HEAD /v1/buckets/<b>: the properties travel in two headers.
export async function bucketProps(name: string): Promise<d.BucketProps> {
  const r = await call(`/v1/buckets/${enc(name)}`, { method: "HEAD" });
  return d.bucketProps(r.headers.get("ais-bucket-props"), r.headers.get("tessera-bucket-props-ext"));
}
// PATCH /v1/buckets/<b> set-bprops (admin-bucket permission): the cluster
// checks the change and pushes it to every target before it answers (the
// page then reads the properties back with bucketProps()).
export async function setBucketProps(name: string, value: Record<string, unknown>): Promise<void> {
  await call(`/v1/buckets/${enc(name)}`, {
    method: "PATCH",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ action: "set-bprops", value }),
  });
}
export async function whoami(): Promise<d.Who> {
  return d.who(await getJson("/v1/whoami"));
}
// Every user (admins only).
export async function listUsers(): Promise<d.Who[]> {
  return d.arr(await getJson("/v1/users")).map(d.who);
}
export async function destroyBucket(name: string): Promise<void> {
  await call(`/v1/buckets/${enc(name)}`, { method: "DELETE" });
}

export interface ListArgs {
  prefix?: string;
  token?: string;
  pageSize?: number;
  archive?: boolean;
  props?: string;
}
export async function listObjects(bucket: string, a: ListArgs, signal?: AbortSignal): Promise<d.ListPage> {
  const q = new URLSearchParams();
  if (a.prefix) q.set("prefix", a.prefix);
  if (a.token) q.set("continuation_token", a.token);
  q.set("pagesize", String(a.pageSize ?? 1000));
  q.set("props", a.props ?? "name,size,version");
  if (a.archive) q.set("archive", "true");
  return d.listPage(await getJson(`/v1/buckets/${enc(bucket)}?${q}`, { signal }));
}

// The first `cap` bytes of an object (Range), through the proxy's S3 path.
export interface Bytes {
  data: Uint8Array;
  total: number;  // the object's size (from Content-Range), -1 when unknown
}
export async function readObject(bucket: string, name: string, cap: number, signal?: AbortSignal): Promise<Bytes> {
  let r: Response;
  try {
    r = await call(`/s3/${enc(bucket)}/${objectPath(name)}`, { headers: { Range: `bytes=0-${cap - 1}` }, signal });
  } catch (e) {
    if (e instanceof ApiError && e.status === 416) return { data: new Uint8Array(0), total: 0 };  // an empty object
    throw e;
  }
  const data = new Uint8Array(await r.arrayBuffer());
  let total = -1;
  const cr = r.headers.get("Content-Range");
  const m = cr ? /\/(\d+)$/.exec(cr) : null;
  if (m) total = Number(m[1]);
  else if (r.status === 200) total = data.length;
  return { data: data.length > cap ? data.subarray(0, cap) : data, total };
}
export function downloadUrl(bucket: string, name: string): string {
  return `/s3/${enc(bucket)}/${objectPath(name)}`;
}

export async function listJobs(): Promise<d.Job[]> {
  return d.arr(await getJson("/v1/jobs")).map(d.job);
}
export async function abortJob(id: string): Promise<d.Job> {
  return d.job(await getJson(`/v1/jobs/${enc(id)}`, { method: "DELETE" }));
}
export async function clusterSmap(): Promise<d.Smap> {
  return d.smap(await getJson("/v1/cluster?what=smap"));
}

// Unit tests of the web console's pure code (console/web/src), run by
// node's test runner after esbuild bundles them (run.mjs): the wire
// decoders take numbers as numbers or strings and never throw, the .tar
// reader, WebDataset keys, the spec errors mapped to fields, units.
import test from "node:test";
import assert from "node:assert/strict";
import * as d from "../../../console/web/src/decode";
import * as fmt from "../../../console/web/src/format";
import { readTar, wdsSplit } from "../../../console/web/src/tar";
import { fieldErrors } from "../../../console/web/src/spec_errors";
import { Series, kMaxPoints } from "../../../console/web/src/history";
import { downloadRefusal, kDownloadCap } from "../../../console/web/src/download";
import { Listing } from "../../../console/web/src/listing";
import { checkForm, fieldOf, formOf, updateOf } from "../../../console/web/src/props_update";
import { kListWindow, setting } from "../../../console/web/src/settings";

test("listing entries: size and version as numbers or strings", () => {
  const page = d.listPage({
    continuation_token: "b",
    entries: [{ name: "a", size: 14, version: 1, flags: 0 }, { name: "b", size: "20000000000", version: "7", flags: "512" }],
  });
  assert.equal(page.token, "b");
  assert.deepEqual(page.entries, [
    { name: "a", size: 14, version: "1", flags: 0 },
    { name: "b", size: 20000000000, version: "7", flags: d.kEntryIsArchive },
  ]);
  assert.deepEqual(d.listPage({ continuation_token: "" }), { token: "", entries: [] });
});

test("decoders never throw on the wrong shapes", () => {
  for (const bad of [null, undefined, 3, "x", [], { entries: "no" }, { entries: [null, 5] }]) {
    assert.doesNotThrow(() => d.listPage(bad));
    assert.doesNotThrow(() => d.job(bad));
    assert.doesNotThrow(() => d.metrics(bad, 0));
    assert.doesNotThrow(() => d.smap(bad));
  }
  assert.equal(d.num("12abc", -1), -1);
  assert.equal(d.num(Number.NaN, 5), 5);
  assert.equal(d.num(" 42 "), 42);
});

test("a job's progress: totals unknown stay -1, states and targets kept", () => {
  const j = d.job({
    id: "ishard-x", kind: "ishard", state: "running", phase: "build",
    progress: { objects_done: "3", bytes_done: 10, errors: 0 },
    targets: { t1: { state: "running", phase: "build", progress: { objects_done: 3, objects_total: 5 } } },
  });
  assert.equal(j.progress.objects_done, 3);
  assert.equal(j.progress.objects_total, -1);
  assert.equal(j.targets.length, 1);
  assert.equal(j.targets[0].progress.objects_total, 5);
});

test("the cluster map: flags of away, maintenance and decommissioning targets", () => {
  const m = d.smap({
    version: "9",
    pmap: { p1: { daemon_id: "p1", daemon_type: "proxy", public_net: { direct_url: "http://h:1" } } },
    tmap: { t1: { daemon_id: "t1", flags: 0x10000 }, t2: { daemon_id: "t2", flags: "131072" } },
  });
  assert.equal(m.version, 9);
  assert.equal(m.proxies[0].url, "http://h:1");
  assert.equal(m.targets[0].flags & d.kFlagAway, d.kFlagAway);
  assert.equal(m.targets[1].flags & d.kFlagMaintenance, d.kFlagMaintenance);
});

function tarOf(members: [string, string][]): Uint8Array {
  const enc = new TextEncoder();
  const parts: Uint8Array[] = [];
  for (const [name, text] of members) {
    const data = enc.encode(text);
    const h = new Uint8Array(512);
    const put = (s: string, off: number) => h.set(enc.encode(s), off);
    put(name, 0);
    put("0000644\0", 100);
    put(data.length.toString(8).padStart(11, "0") + "\0", 124);
    put("14712345670\0", 136);
    put("        ", 148);
    put("0", 156);
    put("ustar\0" + "00", 257);
    let sum = 0;
    for (const b of h) sum += b;
    put(sum.toString(8).padStart(6, "0") + "\0 ", 148);
    parts.push(h, data, new Uint8Array((512 - (data.length % 512)) % 512));
  }
  parts.push(new Uint8Array(1024));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

test("the .tar reader: members with their bytes, and a cut archive", () => {
  const t = tarOf([["a/0001.cls", "7"], ["a/0001.json", "{\"x\":1}"], ["./b.txt", "x".repeat(700)]]);
  const r = readTar(t);
  assert.equal(r.error, "");
  assert.equal(r.truncated, false);
  assert.deepEqual(r.members.map((m) => [m.name, m.size]), [["a/0001.cls", 1], ["a/0001.json", 7], ["b.txt", 700]]);
  assert.equal(new TextDecoder().decode(r.members[0].data!), "7");
  // Cut inside the third member's bytes: it is listed without them.
  const cut = readTar(t.subarray(0, 512 * 5 + 100));
  assert.equal(cut.truncated, true);
  assert.equal(cut.members.length, 3);
  assert.equal(cut.members[2].data, null);
  // A damaged header checksum stops the walk, named.
  const bad = t.slice();
  bad[0] ^= 1;
  assert.match(readTar(bad).error, /checksum at byte 0/);
});

test("WebDataset keys: up to the first dot of the last component", () => {
  assert.deepEqual(wdsSplit("train/0001.jpg"), { key: "train/0001", field: "jpg" });
  assert.deepEqual(wdsSplit("a.b/c.d.e"), { key: "a.b/c", field: "d.e" });
  assert.deepEqual(wdsSplit("noext"), { key: "noext", field: "" });
});

test("spec refusals: each pointer's message on its field", () => {
  const e = fieldErrors("invalid ishard spec: /shard_size: size \"12 parsecs\": unknown unit \"parsecs\" (examples: 4096, 100MB); /sort: \"random\" must be \"alpha\"");
  assert.equal(e.rest, "");
  assert.equal(e.byField.get("shard_size"), "size \"12 parsecs\": unknown unit \"parsecs\" (examples: 4096, 100MB)");
  assert.equal(e.byField.get("sort"), "\"random\" must be \"alpha\"");
  const nested = fieldErrors("/algorithm/seed: not a number");
  assert.equal(nested.byField.get("algorithm/seed"), "not a number");
  const plain = fieldErrors("sample \"train/00007\" has no .cls (missing_extension_action is abort)");
  assert.equal(plain.byField.size, 0);
  assert.equal(plain.rest, "sample \"train/00007\" has no .cls (missing_extension_action is abort)");
});

test("units", () => {
  assert.equal(fmt.bytes(0), "0 B");
  assert.equal(fmt.bytes(1536), "1.5 KiB");
  assert.equal(fmt.bytes(3 * 1024 * 1024 * 1024), "3.0 GiB");
  assert.equal(fmt.rate(0.5), "0.5 B/s");
  assert.equal(fmt.rate(250e6), "250 MB/s");
  assert.equal(fmt.count(1500), "1.5k");
  assert.equal(fmt.latency(0), "—");
  assert.equal(fmt.latency(1.5e9), "1.5 s");
  assert.equal(fmt.duration(3725e9), "1h 2m");
});

test("metrics history keeps the last kMaxPoints", () => {
  const s = new Series(["a", "b"]);
  for (let i = 0; i < kMaxPoints + 5; i++) s.push(i * 1000, [i, -i]);
  assert.equal(s.length, kMaxPoints);
  assert.equal(s.t[0], 5);
  assert.equal(s.cols[1][kMaxPoints - 1], -(kMaxPoints + 4));
});

test("the feed's subprotocols: the access token only when signed in", async () => {
  const { feedProtocols, kFeedProtocol } = await import("../../../console/web/src/feed");
  assert.equal(kFeedProtocol, "tessera.feed.v1");
  assert.deepEqual(feedProtocols(""), ["tessera.feed.v1"]);
  assert.deepEqual(feedProtocols("aa.bb-cc_dd"), ["tessera.feed.v1", "tessera.bearer.aa.bb-cc_dd"]);
});

test("a signed-in download: refused above the cap, with what to use instead", () => {
  assert.equal(downloadRefusal(0), "");
  assert.equal(downloadRefusal(kDownloadCap), "");
  const msg = downloadRefusal(kDownloadCap + 1);
  assert.match(msg, /more than the 256 MiB a signed-in browser download holds in memory/);
  assert.match(msg, /tessera get BUCKET\/NAME/);
  assert.match(downloadRefusal(3 * 2 ** 30, 1 << 20), /^3\.0 GiB is more than the 1\.0 MiB/);
});

test("bucket properties from HEAD's two headers, and their protection in words", () => {
  // As docs/api.md shows them (numbers as strings where AIStore writes them so).
  const ais = '{"access":"18446744073709551615","checksum":{"type":"xxhash","validate_warm_get":false},' +
    '"created":"1795678958988494239","ec":{"data_slices":2,"enabled":false,"objsize_limit":262144,"parity_slices":1},' +
    '"mirror":{"copies":1,"enabled":false},"versioning":{"enabled":true}}';
  const ext = '{"ec":{"pending":false},"mirror":{"across_targets":false,"pending":false}}';
  const p = d.bucketProps(ais, ext);
  assert.equal(p.checksum, "xxhash");
  assert.equal(p.versioning, true);
  assert.equal(Math.round(p.created_ns / 1e9), 1795678959);
  assert.equal(d.protectionWords(p), "one copy (no mirroring, no erasure coding)");
  const mirrored = d.bucketProps(ais.replace('"mirror":{"copies":1,"enabled":false}', '"mirror":{"copies":"2","enabled":true}'),
    '{"mirror":{"across_targets":true,"pending":true}}');
  assert.equal(d.protectionWords(mirrored), "2 copies across targets");
  assert.equal(mirrored.mirror.pending, true);
  const ec = d.bucketProps(ais.replace('"enabled":false,"objsize_limit"', '"enabled":true,"objsize_limit"'), ext);
  assert.equal(d.protectionWords(ec), "erasure coded: 2 data + 1 parity slices (any 1 target may be lost)");
  // Missing or broken headers: defaults, never a throw.
  for (const [a, x] of [[null, null], ["{", "["], ["[]", "5"]]) {
    assert.doesNotThrow(() => d.bucketProps(a, x));
    assert.equal(d.protectionWords(d.bucketProps(a, x)), "one copy (no mirroring, no erasure coding)");
  }
});

test("who may do what on a bucket: grants on it and on *, admins everything", () => {
  const alice = d.who({ name: "alice", admin: false, grants: [{ bucket: "imgs", permissions: ["list", "read"] }, { bucket: "*", permissions: ["read"] }, { bucket: "logs", permissions: ["write"] }] });
  assert.deepEqual(d.permissionsOn(alice, "imgs"), ["read", "list"]);
  assert.deepEqual(d.permissionsOn(alice, "other"), ["read"]);
  assert.deepEqual(d.permissionsOn(d.who({ name: "root", admin: true }), "x"), ["read", "list", "write", "delete", "admin-bucket"]);
  assert.deepEqual(d.permissionsOn(d.who(null), "x"), []);
});

// ---- the bounded listing window (listing.ts) against a fake bucket --------
// Sorted names; a page is the `size` names after the token (the last name of
// the page before), as the proxy's continuation tokens are.
function fakeBucket(names: string[], size: number) {
  const calls: string[] = [];
  const fetchPage = async (token: string) => {
    calls.push(token);
    const sorted = [...names].sort();
    const from = token ? sorted.findIndex((n) => n > token) : 0;
    const page = from < 0 ? [] : sorted.slice(from, from + size);
    const end = from < 0 || from + size >= sorted.length;
    return { token: end ? "" : page[page.length - 1], entries: page.map((name) => ({ name, size: name.length, version: "", flags: 0 })) };
  };
  return { calls, fetchPage };
}
async function settle(l: Listing) {
  for (let i = 0; i < 1000 && l.loading; i++) await new Promise((r) => setTimeout(r, 0));
  assert.equal(l.loading, false);
}
// Scrolls the view [first, first+view) and lets the listing fetch what it
// wants, until it wants nothing; `toEnd`: the view follows the bottom as the
// page does when End was pressed.
async function viewAt(l: Listing, first: number, view = 30, toEnd = false) {
  for (let i = 0; i < 100; i++) {
    if (toEnd) first = Math.max(0, l.stats.rows - view);
    l.want(first, first + view, 2 * view, toEnd);
    if (!l.loading) return;
    await settle(l);
  }
}
const named = (n: number) => Array.from({ length: n }, (_, i) => `obj-${String(i).padStart(5, "0")}`);

test("listing window: pages far from the view are dropped and fetched again by their token", async () => {
  const names = named(2000);
  const b = fakeBucket(names, 100);
  const l = new Listing("", (t) => b.fetchPage(t), 300, () => undefined);
  await viewAt(l, 0);
  assert.equal(l.stats.names, 100);
  assert.equal(l.complete, false);
  // To the end, a page at a time, the view following the bottom.
  await viewAt(l, 0, 30, true);
  assert.equal(l.complete, true);
  assert.equal(l.stats.names, 2000);
  assert.equal(l.stats.rows, 2000);
  assert.equal(b.calls.length, 20);
  assert.ok(l.stats.held <= 300 + 2 * 100, `held ${JSON.stringify(l.stats)}`);
  assert.ok(l.stats.dropped >= 15, `dropped ${l.stats.dropped}`);
  assert.equal(l.rowAt(0), null, JSON.stringify(l.stats));  // dropped
  assert.equal(l.rowAt(1999)?.name, "obj-01999");
  // Back to the middle: the view's page (10) fetched again with its token
  // first, then the one its margin reaches into (9); the right names.
  await viewAt(l, 1000);
  assert.deepEqual(b.calls.slice(20), ["obj-00999", "obj-00899"]);
  assert.equal(l.stats.refetches, 2);
  for (let i = 1000; i < 1030; i++) assert.equal(l.rowAt(i)?.name, names[i]);
  // Totals unchanged by dropping and fetching again.
  assert.equal(l.stats.names, 2000);
  assert.equal(l.complete, true);
  assert.ok(l.stats.held <= 500);
  // Back to the top: the first page (no token).
  await viewAt(l, 0);
  assert.equal(b.calls.at(-1), "");
  assert.equal(l.rowAt(0)?.name, "obj-00000");
  l.close();
});

test("listing window: folders fold across pages, also in a page fetched again", async () => {
  // 250 names in a/, then 250 flat: a/ is one row spanning three pages of 100.
  const names = [...Array.from({ length: 250 }, (_, i) => `a/x${String(i).padStart(3, "0")}`), ...named(250)];
  const b = fakeBucket(names, 100);
  const l = new Listing("", (t) => b.fetchPage(t), 100, () => undefined);
  await viewAt(l, 0, 10, true);
  assert.equal(l.complete, true);
  assert.equal(l.stats.rows, 251);
  assert.equal(l.stats.names, 500);
  await viewAt(l, 0, 10);
  assert.deepEqual(l.rowAt(0), { kind: "folder", name: "a/", size: 0 });
  assert.equal(l.rowAt(1)?.name, "obj-00000");
  // Page 2 (a/x200..a/x249 and obj-00000..49) again: no second a/ row.
  await viewAt(l, 240, 10);
  assert.equal(l.rowAt(250)?.name, "obj-00249");
  assert.equal(l.stats.rows, 251);
  l.close();
});

test("listing window: a page fetched again that changed lists the rest again", async () => {
  const names = named(1000);
  const b = fakeBucket(names, 100);
  const l = new Listing("", (t) => b.fetchPage(t), 200, () => undefined);
  await viewAt(l, 0, 30, true);
  assert.equal(l.stats.names, 1000);
  assert.equal(l.rowAt(0), null);
  // A name added in the first page while it was dropped.
  names.push("obj-00000-new");
  await viewAt(l, 0);
  assert.equal(l.changed, true);
  assert.equal(l.rowAt(1)?.name, "obj-00000-new");
  assert.equal(l.complete, false);  // the rest is listed again
  await viewAt(l, 0, 30, true);
  assert.equal(l.stats.names, 1001);
  assert.equal(l.rowAt(1000)?.name, "obj-00999");
  l.close();
});

test("listing window: a failed page is an error, an empty bucket is complete", async () => {
  const l = new Listing("", async () => { throw new Error("503 no targets"); }, 100, () => undefined);
  await viewAt(l, 0);
  assert.equal(l.error, "503 no targets");
  const empty = new Listing("", async () => ({ token: "", entries: [] }), 100, () => undefined);
  await viewAt(empty, 0);
  assert.equal(empty.complete, true);
  assert.equal(empty.stats.rows, 0);
  assert.equal(empty.rowAt(0), null);
});

// ---- changing the protection (props_update.ts) ----------------------------
function propsOf(o: { mirror?: Partial<d.BucketProps["mirror"]>; ec?: Partial<d.BucketProps["ec"]>; vwg?: boolean }): d.BucketProps {
  return {
    created_ns: 1, checksum: "xxhash", validate_warm_get: o.vwg ?? false, versioning: false,
    mirror: { enabled: false, copies: 1, across_targets: false, pending: false, ...o.mirror },
    ec: { enabled: false, data_slices: 2, parity_slices: 1, objsize_limit: 262144, pending: false, ...o.ec },
  };
}

test("protection form: only what changed is sent, and the job it starts is said", () => {
  const plain = propsOf({});
  assert.deepEqual(formOf(plain), { mode: "none", copies: 2, data: 2, parity: 1, limit: 262144, validateWarmGet: false });
  assert.deepEqual(updateOf(plain, formOf(plain)), { value: null, job: "" });
  // One copy to 2 across targets: a reprotect job makes the copies.
  const two = updateOf(plain, { ...formOf(plain), mode: "mirror", copies: 2 });
  assert.deepEqual(two.value, { mirror: { enabled: true, copies: 2, across_targets: true } });
  assert.match(two.job, /^makes 2 copies of every object/);
  // 3 copies down to 2: drops; mirror off: drops.
  const three = propsOf({ mirror: { enabled: true, copies: 3, across_targets: true } });
  assert.equal(formOf(three).mode, "mirror");
  assert.equal(updateOf(three, { ...formOf(three), copies: 2 }).job, "drops the copies no longer asked for");
  assert.deepEqual(updateOf(three, { ...formOf(three), mode: "none" }), { value: { mirror: { enabled: false } }, job: "drops the copies no longer asked for" });
  // Mirror to erasure coding in one update (the cluster refuses both on).
  const toEc = updateOf(three, { ...formOf(three), mode: "ec", data: 1, parity: 1 });
  assert.deepEqual(toEc.value, { mirror: { enabled: false }, ec: { enabled: true, data_slices: 1, parity_slices: 1 } });
  assert.match(toEc.job, /^cuts every object already in the bucket into 1 data \+ 1 parity slices/);
  // Erasure coding on: the limit alone changes, no job; off: no job.
  const ec = propsOf({ ec: { enabled: true, data_slices: 1, parity_slices: 1 } });
  assert.deepEqual(updateOf(ec, { ...formOf(ec), limit: 1024 }), { value: { ec: { objsize_limit: 1024 } }, job: "" });
  assert.deepEqual(updateOf(ec, { ...formOf(ec), mode: "none" }), { value: { ec: { enabled: false } }, job: "" });
  // The checksum check on GET: no job.
  assert.deepEqual(updateOf(plain, { ...formOf(plain), validateWarmGet: true }), { value: { checksum: { validate_warm_get: true } }, job: "" });
  // Copies on the mountpaths of each target: the form keeps them until a mirror change, which moves them across targets.
  const mp = propsOf({ mirror: { enabled: true, copies: 2, across_targets: false } });
  assert.deepEqual(updateOf(mp, formOf(mp)).value, { mirror: { enabled: true, copies: 2, across_targets: true } });
  assert.equal(updateOf(mp, { ...formOf(mp), mode: "none" }).job, "drops the copies no longer asked for");
});

test("protection form: values out of the API's bounds stay on the page; the cluster's refusals find their field", () => {
  const f = formOf(propsOf({}));
  assert.equal(checkForm({ ...f, mode: "mirror", copies: 9 })?.field, "copies");
  assert.equal(checkForm({ ...f, mode: "mirror", copies: NaN })?.field, "copies");
  assert.equal(checkForm({ ...f, mode: "mirror", copies: 2.5 })?.field, "copies");
  assert.equal(checkForm({ ...f, mode: "ec", data: 17 })?.field, "slices");
  assert.equal(checkForm({ ...f, mode: "ec", limit: -1 })?.field, "limit");
  assert.equal(checkForm({ ...f, mode: "ec" }), null);
  assert.equal(checkForm({ ...f, mode: "ec", copies: NaN }), null);  // copies do not matter then
  assert.equal(fieldOf("mirror.copies is 4 but the cluster has 3 target(s): each copy needs a target of its own"), "copies");
  assert.equal(fieldOf("ec.data_slices + ec.parity_slices + 1 is 5 (3 + 1 + 1) but the cluster has 3 target(s)"), "slices");
  assert.equal(fieldOf("ec.enabled and mirror.enabled exclude each other: a bucket is either mirrored or erasure coded"), "mode");
  assert.equal(fieldOf("ec.objsize_limit must be an integer from 0 to 1073741824"), "limit");
  assert.equal(fieldOf("bucket \"x\" does not exist"), "");
});

test("settings: defaults without storage", () => {
  assert.equal(setting(kListWindow), 50000);
});

// The web console in headless Debian Chromium (playwright-core), against a
// real cluster started by test_web_console: what a user does, checked on
// the page and on the cluster. Writes docs/images/web-*.png.
// Usage: node web_console.mjs --url http://127.0.0.1:PORT --modules DIR
//          --chromium /usr/bin/chromium --shots DIR --kill-pid PID
// Prints "ok web console" at the end; any failure throws with what differed.
import { createRequire } from "node:module";
import { deflateSync } from "node:zlib";
import { mkdirSync, writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const arg = (name) => {
  const i = process.argv.indexOf(name);
  if (i < 0 || i + 1 >= process.argv.length) throw new Error(`missing ${name}`);
  return process.argv[i + 1];
};
const base = arg("--url");
const { chromium } = createRequire(join(arg("--modules"), "noop.js"))("playwright-core");
const shots = arg("--shots");
const mode = process.argv.includes("--auth") ? "auth" : "journey";
const killPid = mode === "journey" ? Number(arg("--kill-pid")) : 0;
const kTimeout = 20000;
const started = Date.now();
const step = (what) => console.log(`${((Date.now() - started) / 1000).toFixed(1)}s ${what}`);
function check(cond, what) {
  if (!cond) throw new Error(`check failed: ${what}`);
}

// ---- data made here ------------------------------------------------------
const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
// A w x h RGB PNG whose colour depends on `seed`.
function png(w, h, seed) {
  const chunk = (type, data) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(td));
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const raw = Buffer.alloc((w * 3 + 1) * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const o = y * (w * 3 + 1) + 1 + x * 3;
      const on = ((x >> 2) + (y >> 2) + seed) % 2 === 0;
      raw[o] = on ? (seed * 53) % 256 : 255;
      raw[o + 1] = on ? (seed * 97) % 256 : 255;
      raw[o + 2] = on ? 180 : 255;
    }
  }
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw)), chunk("IEND", Buffer.alloc(0))]);
}
function tar(members) {
  const parts = [];
  for (const [name, data] of members) {
    const h = Buffer.alloc(512);
    h.write(name, 0, 100);
    h.write("0000644\0", 100);
    h.write("0000000\0", 108);
    h.write("0000000\0", 116);
    h.write(data.length.toString(8).padStart(11, "0") + "\0", 124);
    h.write("14712345670\0", 136);
    h.write("        ", 148);
    h.write("0", 156);
    h.write("ustar\0", 257);
    h.write("00", 263);
    let sum = 0;
    for (const b of h) sum += b;
    h.write(sum.toString(8).padStart(6, "0") + "\0 ", 148);
    parts.push(h, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

// ---- the cluster, outside the browser --------------------------------------
async function rest(method, path, body) {
  const r = await fetch(base + path, { method, body, redirect: "follow" });
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
  return r;
}
const putObject = (bucket, name, data) =>
  rest("PUT", `/s3/${bucket}/${name.split("/").map(encodeURIComponent).join("/")}`, data);
async function readObject(bucket, name) {
  const r = await rest("GET", `/v1/objects/${bucket}/${name.split("/").map(encodeURIComponent).join("/")}`);
  return Buffer.from(await r.arrayBuffer());
}
async function parallel(items, n, fn) {
  let i = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (i < items.length) await fn(items[i++]);
  }));
}

// The bucket: 20,000 objects (19,995 flat, 5 in a folder), 20 pages of 1000.
const kPaged = 19995;
const kPagedTotal = kPaged + 5;
const labels = ["3", "7", "1", "0", "9", "4", "2", "8"];
// A WebDataset shard of 8 samples (png, cls, json; sample 5 without json).
function demoShard() {
  const members = [];
  labels.forEach((l, i) => {
    const key = `sample-${String(i).padStart(4, "0")}`;
    members.push([`${key}.png`, png(32, 32, i + 1)], [`${key}.cls`, Buffer.from(l)]);
    if (i !== 5) members.push([`${key}.json`, Buffer.from(JSON.stringify({ i, label: Number(l) }))]);
  });
  return tar(members);
}
async function seed() {
  await rest("POST", "/v1/buckets/demo", JSON.stringify({ action: "create-bck" }));
  await rest("POST", "/v1/buckets/paged", JSON.stringify({ action: "create-bck" }));
  await putObject("demo", "images/cat.png", png(64, 48, 3));
  await putObject("demo", "meta/info.json", Buffer.from(JSON.stringify({ dataset: "demo", samples: 8, classes: [0, 1, 2] })));
  await putObject("demo", "notes.txt", Buffer.from("Tessera web console test notes\nline two\n"));
  await putObject("demo", "big.txt", Buffer.from("0123456789abcde\n".repeat(96 * 1024)));  // 1.5 MiB
  await putObject("demo", "blob.bin", Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 7) % 256)));
  await putObject("demo", "shards/shard-0000.tar", demoShard());
  const names = Array.from({ length: kPaged }, (_, i) => `obj-${String(i).padStart(5, "0")}.txt`);
  names.push(...Array.from({ length: 5 }, (_, i) => `sub/dir/f${i}.txt`));
  const t0 = Date.now();
  await parallel(names, 16, (n) => putObject("paged", n, Buffer.from(n)));
  const secs = (Date.now() - t0) / 1000;
  step(`filled paged: ${names.length} objects by 16 parallel S3 PUTs in ${secs.toFixed(1)} s (${Math.round(names.length / secs)}/s)`);
}

// ---- the browser -----------------------------------------------------------
// --no-sandbox: the tests run as root (CI); /dev/shm may be small in containers.
const browser = await chromium.launch({ executablePath: arg("--chromium"), headless: true,
  args: ["--no-sandbox", "--disable-dev-shm-usage"] });
const problems = [];
async function newPage(opts) {
  // A TLS cluster (TESSERA_TEST_TLS=1) serves a certificate of a test CA.
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: "light",
    ignoreHTTPSErrors: base.startsWith("https:"), ...opts });
  const page = await ctx.newPage();
  page.setDefaultTimeout(kTimeout);
  page.on("console", (m) => {
    // The refusals asked for (400): the dSort dry run with a bad size, and
    // 4 copies of bucket demo on 3 targets (PATCH /v1/buckets/demo).
    const url = m.location().url ?? "";
    const expected = /status of 400/.test(m.text()) && (url.includes("/v1/sort?dry_run=true") || url.endsWith("/v1/buckets/demo"));
    if (m.type() === "error" && !expected) problems.push(`console: ${m.text()} (${m.location().url})`);
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  return page;
}
const shot = async (page, name) => {
  await page.screenshot({ path: join(shots, `web-${name}.png`) });
  step(`screenshot web-${name}.png`);
};
const text = (page, sel) => page.locator(sel).first().innerText();

// Auth on: the sign-in form, a wrong password, signing in, the pages
// through the token, the live feed opened with the token as a WebSocket
// subprotocol (live dashboard numbers under load), the feed reconnecting
// with the refreshed token after the access token was revoked elsewhere, a
// session whose tokens were all revoked elsewhere, sign out.
async function authJourney() {
  mkdirSync(shots, { recursive: true });
  const page = await newPage();
  // Every feed socket the page opens, with the subprotocols it offered.
  await page.addInitScript(() => {
    const Native = window.WebSocket;
    window.__feeds = [];
    window.WebSocket = class extends Native {
      constructor(url, protocols) {
        super(url, protocols);
        window.__feeds.push({ offered: protocols ?? [], ws: this });
      }
    };
  });
  // The newest feed socket is open, selected tessera.feed.v1, and offered `token`.
  const feedOpenWith = (token) => page.waitForFunction((t) => {
    const f = window.__feeds.at(-1);
    return f && f.ws.readyState === 1 && f.ws.protocol === "tessera.feed.v1" &&
      f.offered.length === 2 && f.offered[0] === "tessera.feed.v1" && f.offered[1] === `tessera.bearer.${t}`;
  }, token);
  await page.goto(`${base}/console/buckets`);
  await page.locator("form[aria-label='sign in']").waitFor();
  await shot(page, "signin");
  for (const [scheme, width] of [["light", 768], ["dark", 1280], ["dark", 768]]) {
    const sp = await newPage({ colorScheme: scheme, viewport: { width, height: width === 768 ? 1024 : 800 } });
    await sp.goto(`${base}/console/buckets`);
    await sp.locator("form[aria-label='sign in']").waitFor();
    check(await sp.evaluate(() => document.documentElement.scrollWidth <= innerWidth), `sign-in: no horizontal scroll at ${width} px`);
    await shot(sp, `signin${scheme === "dark" ? "-dark" : ""}${width === 768 ? "-768" : ""}`);
    await sp.close();
  }
  await page.fill("input[autocomplete=username]", "admin");
  await page.fill("input[autocomplete=current-password]", "wrong-password-1");
  await page.click("button:text('Sign in')");
  const wrong = await page.locator("form[aria-label='sign in'] .error").innerText();
  check(wrong.length > 0, "a wrong password is refused on the form");
  await page.fill("input[autocomplete=current-password]", "admin-password-1");
  await page.click("button:text('Sign in')");
  await page.locator(".who >> text=admin").waitFor();
  check(await page.evaluate(() => sessionStorage.getItem("tessera.token") !== null && localStorage.length === 0),
    "the tokens are in sessionStorage, nothing in localStorage");
  await page.fill("input[aria-label='new bucket name']", "authed");
  await page.click("button:text('Create')");
  await page.waitForURL(/\/console\/buckets\/authed$/);
  await page.locator("[data-testid=listing-state][data-complete=true]").waitFor();
  await page.click("nav >> text=Nodes");
  await page.locator("[data-testid=feed-status][data-status=live]").waitFor();
  await page.locator("[data-testid=nodes-table] tbody tr[data-state=online]").nth(1).waitFor();
  step("signed in: a bucket created with the token, the feed live");

  // Object bytes with auth on go through /s3/ with the token (Bearer):
  // a drop of files uploads, every preview reads, Download saves.
  const files = [
    ["cat.png", png(64, 48, 3)],
    ["info.json", Buffer.from(JSON.stringify({ dataset: "authed", samples: 8 }))],
    ["notes.txt", Buffer.from("notes read with a token\nline two\n")],
    ["blob.bin", Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 7) % 256))],
    ["shard-0000.tar", demoShard()],
  ];
  await page.goto(`${base}/console/buckets/authed`);
  await page.locator("[data-testid=listing-state][data-complete=true]").waitFor();
  await page.evaluate((list) => {
    const dt = new DataTransfer();
    for (const [name, b64] of list) dt.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], name));
    document.querySelector("[data-testid=object-rows]").dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, files.map(([n, b]) => [n, b.toString("base64")]));
  await page.waitForFunction((n) => new RegExp(`^${n}/${n} files`).test(document.querySelector("[data-testid=upload-total]")?.textContent ?? ""), files.length);
  const adminToken = (await page.evaluate(() => JSON.parse(sessionStorage.getItem("tessera.token")).tokens)).token;
  for (const [n, data] of files) {
    const r = await fetch(`${base}/v1/objects/authed/${n}`, { headers: { Authorization: `Bearer ${adminToken}` }, redirect: "follow" });
    check(r.ok && Buffer.compare(Buffer.from(await r.arrayBuffer()), data) === 0, `dropped ${n} reads back equal (${r.status})`);
  }
  // Unsigned, the same object is still refused on /s3/.
  const unsigned = await fetch(`${base}/s3/authed/notes.txt`);
  check(unsigned.status === 403, `an unsigned S3 call is still refused (${unsigned.status})`);
  step(`dropped ${files.length} files with auth on; read back equal`);
  const authedPreview = async (name, testid) => {
    await page.goto(`${base}/console/buckets/authed?object=${encodeURIComponent(name)}`);
    await page.locator(`[data-testid=${testid}]`).waitFor();
  };
  await authedPreview("info.json", "preview-json");
  check((await text(page, "[data-testid=preview-json]")).includes('"dataset": "authed"'), "JSON preview with auth on");
  await authedPreview("notes.txt", "preview-text");
  check((await text(page, "[data-testid=preview-text]")).startsWith("notes read with a token"), "text preview with auth on");
  await authedPreview("cat.png", "preview-image");
  await page.waitForFunction(() => document.querySelector("[data-testid=preview-image]")?.naturalWidth === 64);
  await authedPreview("blob.bin", "preview-hex");
  check((await text(page, "[data-testid=preview-hex]")).startsWith("00000000  00 07 0e 15"), "hex preview with auth on");
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("[data-testid=download]")]);
  check(download.suggestedFilename() === "blob.bin", `download named ${download.suggestedFilename()}`);
  const { readFileSync } = await import("node:fs");
  check(Buffer.compare(readFileSync(await download.path()), files[3][1]) === 0, "the download with auth on is the object's bytes");
  await authedPreview("shard-0000.tar", "shard-preview");
  await page.waitForFunction(() => [...document.querySelectorAll("[data-testid=sample-row] img.thumb")].filter((i) => i.naturalWidth === 32).length === 8);
  for (let i = 0; i < 8; i++) {
    const row = page.locator(`[data-testid=sample-row][data-key=sample-${String(i).padStart(4, "0")}]`);
    check((await row.locator("td[data-field=cls]").innerText()) === labels[i], `label of sample ${i} with auth on`);
  }
  step("auth on: JSON, text, image, hex and shard previews, and a download, through /s3/ with the token");
  await shot(page, "shard-auth");
  // The download cap, lowered for this tab with ?download_cap=1024 (the
  // smallest): the 300-byte object still downloads; the shard (tens of KiB)
  // is refused on the page with the message, and nothing is saved.
  await page.goto(`${base}/console/buckets/authed?download_cap=1024&object=blob.bin`);
  await page.locator("[data-testid=preview-hex]").waitFor();
  const [small] = await Promise.all([page.waitForEvent("download"), page.click("[data-testid=download]")]);
  check(small.suggestedFilename() === "blob.bin", "an object under the lowered cap downloads");
  await authedPreview("shard-0000.tar", "shard-preview");
  let saved = 0;
  const onDownload = () => saved++;
  page.on("download", onDownload);
  await page.click("[data-testid=download]");
  const capped = await page.locator("[data-testid=download-error]").innerText();
  check(/^\d+ KiB is more than the 1\.0 KiB a signed-in browser download holds in memory; use `tessera get BUCKET\/NAME` or an S3 client with a key$/.test(capped),
    `the cap's message in the browser: ${capped}`);
  check(saved === 0, "nothing saved above the cap");
  page.off("download", onDownload);
  await shot(page, "download-cap");
  await page.goto(`${base}/console/buckets/authed?download_cap=${256 * 1024 * 1024}`);
  step(`download cap lowered to 1 KiB: 300 B downloaded, the shard refused: ${capped}`);

  // The dashboard's numbers come from the feed: a load with the token.
  const session = () => page.evaluate(() => JSON.parse(sessionStorage.getItem("tessera.token")).tokens);
  const first = await session();
  const authed = (method, path, body) => fetch(base + path, { method, body, redirect: "follow",
    headers: { Authorization: `Bearer ${first.token}` } }).then(async (r) => {
    if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
    return r.arrayBuffer();
  });
  await page.click("nav >> text=Dashboard");
  await authed("PUT", "/v1/objects/authed/load.bin", "0123456789abcdef".repeat(4096));  // a string: undici replays it on the 307
  let loading = true;
  const load = (async () => {
    while (loading) await parallel(Array.from({ length: 8 }, (_, k) => k), 4, () => authed("GET", "/v1/objects/authed/load.bin"));
  })();
  await page.waitForFunction(() => {
    const c = document.querySelector("[data-testid=chart-throughput]");
    const get = document.querySelector("[data-testid=get-rate]")?.textContent ?? "";
    return c && Number(c.getAttribute("data-points")) >= 4 && !/^0 B\/s$/.test(get);
  });
  loading = false;
  await load;
  await feedOpenWith(first.token);
  step(`dashboard live with auth on: GET ${await text(page, "[data-testid=get-rate]")}, ` +
    `${await page.locator("[data-testid=chart-throughput]").getAttribute("data-points")} points`);

  // The access token revoked elsewhere (the refresh token kept): the next
  // REST call refreshes it, and the feed reconnects with the new one.
  const revokeAccess = await fetch(`${base}/v1/tokens`, { method: "DELETE", headers: { Authorization: `Bearer ${first.token}` },
    body: JSON.stringify({ token: first.token }) });
  check(revokeAccess.ok, `revoke the access token: ${revokeAccess.status}`);
  await page.click("nav >> text=Buckets");  // lists the buckets: a 401, then the refresh
  await page.waitForFunction((old) => JSON.parse(sessionStorage.getItem("tessera.token") ?? "{}").tokens?.token !== old, first.token);
  const second = await session();
  check(second.token && second.token !== first.token, "a new access token after the refresh");
  await feedOpenWith(second.token);
  await page.locator("[data-testid=feed-status][data-status=live]").waitFor();
  step("access token refreshed: the feed reconnected with the new one");

  // An upload whose token was revoked under it: its 401 refreshes the
  // session once and the upload is sent again with the new token.
  await page.click("[data-bucket=authed]");
  await page.locator("[data-testid=listing-state][data-complete=true]").waitFor();
  const beforeUpload = await session();
  const revokeAgain = await fetch(`${base}/v1/tokens`, { method: "DELETE", headers: { Authorization: `Bearer ${beforeUpload.token}` },
    body: JSON.stringify({ token: beforeUpload.token }) });
  check(revokeAgain.ok, `revoke the access token again: ${revokeAgain.status}`);
  await page.evaluate(() => {
    const dt = new DataTransfer();
    dt.items.add(new File(["sent again with a fresh token\n"], "late.txt"));
    document.querySelector("[data-testid=object-rows]").dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
  });
  await page.locator("[data-testid=uploads] li[data-state=done]").filter({ hasText: "authed/late.txt" }).waitFor();
  const afterUpload = await session();
  check(afterUpload.token !== beforeUpload.token, "the upload's 401 refreshed the session");
  const late = await fetch(`${base}/v1/objects/authed/late.txt`, { headers: { Authorization: `Bearer ${afterUpload.token}` }, redirect: "follow" });
  check(late.ok && (await late.text()) === "sent again with a fresh token\n", `the upload after a refresh reads back (${late.status})`);
  await feedOpenWith(afterUpload.token);
  step("an upload refused for a revoked token: refreshed, sent again, read back equal");

  // The bucket's properties with auth on: who may do what.
  await page.click("button:text('Properties')");
  await page.locator("[data-testid=props-mine]").waitFor();
  check((await text(page, "[data-testid=props-mine]")) === "you (admin, admin): read, list, write, delete, admin-bucket", "the admin's permissions");
  check((await text(page, "[data-testid=props-others]")).includes("no other user may use it"), "no other user holds a grant");
  step("bucket properties with auth on: the caller's permissions and the other users'");
  // The admin may change the protection; a user who may only read and list
  // the bucket sees the form read-only, saying why.
  check(await page.locator("[data-testid=props-form] input[value=mirror]").isEnabled(), "the admin's form is enabled");
  const adminNow = (await session()).token;
  const asAdmin = (method, path, body) => fetch(base + path, { method, body: JSON.stringify(body),
    headers: { Authorization: `Bearer ${adminNow}`, "Content-Type": "application/json" } }).then(async (r) => {
    if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
  });
  await asAdmin("POST", "/v1/users", { name: "viewer", password: "viewer-password-1", admin: false });
  await asAdmin("POST", "/v1/users/viewer/grants", { bucket: "authed", permissions: ["read", "list"] });
  const vp = await newPage();
  await vp.goto(`${base}/console/buckets/authed?props=1`);
  await vp.fill("input[autocomplete=username]", "viewer");
  await vp.fill("input[autocomplete=current-password]", "viewer-password-1");
  await vp.click("button:text('Sign in')");
  const readOnly = await vp.locator("[data-testid=props-readonly]").filter({ hasText: "read-only" }).innerText();
  check(readOnly === "read-only: changing the protection needs the admin-bucket permission on authed (you may: read, list)",
    `the viewer's form says why it is read-only: ${readOnly}`);
  check(await vp.locator("[data-testid=props-form] fieldset").evaluate((f) => f.disabled) &&
    await vp.locator("[data-testid=props-form] input[value=mirror]").isDisabled(), "the viewer's form is disabled");
  check(await vp.locator("[data-testid=props-apply]").isDisabled(), "the viewer's Apply is disabled");
  await shot(vp, "bucket-props-readonly");
  await vp.close();
  step("bucket properties with auth on: the admin may change them; a reader sees them read-only");

  // Both tokens revoked elsewhere: the next call's 401 cannot refresh.
  const tokens = await session();
  for (const t of [tokens.refresh_token, tokens.token]) {
    const r = await fetch(`${base}/v1/tokens`, { method: "DELETE", headers: { Authorization: `Bearer ${tokens.token}` }, body: JSON.stringify({ token: t }) });
    check(r.ok, `revoke a token: ${r.status} ${await r.text()}`);
  }
  await page.click("nav >> text=Jobs");
  await page.locator("form[aria-label='sign in'] >> text=session expired").waitFor();
  step("revoked tokens: session expired, the sign-in form again");
  await page.fill("input[autocomplete=username]", "admin");
  await page.fill("input[autocomplete=current-password]", "admin-password-1");
  await page.click("button:text('Sign in')");
  await page.locator(".who >> text=admin").waitFor();
  await page.click("button:text('Sign out')");
  await page.locator("form[aria-label='sign in']").waitFor();
  check(await page.evaluate(() => sessionStorage.getItem("tessera.token") === null), "signing out forgets the tokens");
  // Expected: 401s (the probe, the wrong password, the revoked tokens), and
  // the feed's sockets closed while they connect (a new token, signing out).
  check(problems.every((p) => /\b(401|403)\b/.test(p) || /wss?:\/\//.test(p)), `no other console errors: ${problems.join(" | ")}`);
  console.log(`ok web console auth (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

// The listing's bounded window (?list_window=2000, the smallest: 2 pages of
// 1000) on the 20,000-object bucket: End pages on to "listing complete"
// with the right total while at most the window plus two pages of rows are
// held and the far pages are dropped; scrolling back fetches a dropped page
// again by its continuation token (a token asked twice) and shows the right
// names; Home and PageDown scroll by keyboard. The JS heap after a forced
// GC grows less with the window than with the whole listing held
// (?list_window=1000000), measured with CDP Runtime.getHeapUsage.
async function windowedListing() {
  const kWindow = 2000;
  const listingRun = async (windowRows) => {
    const wp = await newPage();
    const tokens = [];
    wp.on("request", (r) => {
      const u = new URL(r.url());
      if (r.method() === "GET" && u.pathname === "/v1/buckets/paged") tokens.push(u.searchParams.get("continuation_token") ?? "");
    });
    const cdp = await wp.context().newCDPSession(wp);
    const heap = async () => {
      await cdp.send("HeapProfiler.collectGarbage");
      return (await cdp.send("Runtime.getHeapUsage")).usedSize;
    };
    await wp.goto(`${base}/console/buckets/paged?list_window=${windowRows}`);
    await wp.locator("[data-testid=listing-state]").filter({ hasText: "1000 objects" }).waitFor();
    await wp.locator("[data-testid=listing-state]:not(:has-text('loading'))").waitFor();
    const heapFirst = await heap();
    const t0 = Date.now();
    await wp.locator("[data-testid=object-rows]").focus();
    await wp.keyboard.press("End");
    await wp.locator("[data-testid=listing-state][data-complete=true]").waitFor({ timeout: 60000 });
    const toEnd = Date.now() - t0;
    await wp.locator(".obj-row.folder[data-name='sub/']").waitFor();
    const state = wp.locator("[data-testid=listing-state]");
    const attr = async (n) => Number(await state.getAttribute(`data-${n}`));
    const heapEnd = await heap();
    return { wp, tokens, heap, state, attr, heapFirst, heapEnd, toEnd };
  };

  const w = await listingRun(kWindow);
  const { wp, tokens, state, attr } = w;
  const all = await state.innerText();
  check(all.startsWith(`${kPagedTotal} objects`) && all.includes("listing complete"), `windowed: paged to the end with End: ${all}`);
  const held = await attr("held");
  check(held <= kWindow + 2 * 1000, `windowed: at most the window and two pages held (${held})`);
  const dropped = await attr("dropped");
  check(dropped >= 15, `windowed: far pages dropped (${dropped})`);
  const firstPass = tokens.length;
  check((await attr("fetches")) === firstPass && firstPass >= kPagedTotal / 1000 && new Set(tokens).size === firstPass,
    `windowed: each page fetched once on the way to the end (${firstPass} requests, ${await attr("fetches")} fetches: ${tokens.join(" ")})`);
  const { middle, paged } = await walkBack(wp);
  const again = tokens.slice(firstPass);
  check(again.length >= 2 && again.every((t) => tokens.indexOf(t) < firstPass) && again.filter((t) => t === "").length === 1,
    `windowed: scrolling back fetched dropped pages again by their tokens, Home the first page (no token): ${again.join(", ")}`);
  check((await attr("refetches")) === again.length, "windowed: the page counts its fetches again");
  const rightNames = (rows) => rows.every(([i, n]) => n === `obj-${String(i).padStart(5, "0")}.txt`);
  check(middle.length > 20 && middle.length < 100 && middle.some(([i]) => i === 10000) && rightNames(middle),
    `windowed: the rows shown after scrolling back to the middle are the right names (${middle[0]} .. ${middle.at(-1)})`);
  check(paged[0][0] >= 20 && rightNames(paged), `windowed: PageDown after Home shows the next rows, the right names (${paged[0]})`);
  check((await state.innerText()) === all, `windowed: the total and "listing complete" unchanged: ${await state.innerText()}`);
  check((await attr("held")) <= kWindow + 2 * 1000, `windowed: still at most the window and two pages held (${await attr("held")})`);
  const heapBack = await w.heap();
  await wp.close();
  // The same walk with the whole listing held.
  const f = await listingRun(1000000);
  check((await f.attr("held")) === kPagedTotal - 4, `whole listing held: ${await f.attr("held")} rows`);
  await walkBack(f.wp);
  const heapBackAll = await f.heap();
  await f.wp.close();
  const kib = (n) => `${n >= 0 ? "+" : ""}${(n / 1024).toFixed(0)} KiB`;
  const grew = w.heapEnd - w.heapFirst;
  const grewAll = f.heapEnd - f.heapFirst;
  step(`windowed listing (window ${kWindow}): End to "listing complete" in ${(w.toEnd / 1000).toFixed(1)} s, ${held} rows held, ` +
    `${dropped} pages dropped, ${again.length} fetched again scrolling back; JS heap after GC from the first page: ` +
    `${kib(grew)} at the end, ${kib(heapBack - w.heapFirst)} after scrolling back; whole listing held (window 1,000,000): ` +
    `${kib(grewAll)} and ${kib(heapBackAll - f.heapFirst)} (End in ${(f.toEnd / 1000).toFixed(1)} s)`);
  // Both walks do the same, so they differ by the rows held (2,000-4,000 of 19,996).
  check(grew < grewAll && heapBack - w.heapFirst < heapBackAll - f.heapFirst,
    "the window keeps the JS heap below the whole listing's, at the end and after scrolling back");
}

// Back to the middle of the 20,000 rows with the scroll bar, then Home and
// PageDown 3 times from the keyboard; the rows shown (index, name) at each.
async function walkBack(wp) {
  const shown = async () => wp.locator(".obj-row:not(.pending)").evaluateAll((rows) =>
    rows.map((r) => [Number(r.getAttribute("data-row")), r.getAttribute("data-name")]).sort((a, b) => a[0] - b[0]));
  const settled = () => wp.locator("[data-testid=listing-state]:not(:has-text('loading'))").waitFor();
  await wp.locator("[data-testid=object-rows]").evaluate((el) => (el.scrollTop = 10000 * 28));
  await wp.locator(".obj-row[data-name='obj-10000.txt']").waitFor();
  await settled();
  const middle = await shown();
  await wp.locator("[data-testid=object-rows]").focus();
  await wp.keyboard.press("Home");
  await wp.locator(".obj-row[data-name='obj-00000.txt']").waitFor();
  for (let i = 0; i < 3; i++) await wp.keyboard.press("PageDown");
  // Past 30 rows down (the first row drawn is then at least 20: 10 drawn above the view).
  await wp.waitForFunction(() => document.querySelector("[data-testid=object-rows]").scrollTop > 3 * 28 * 10);
  await settled();
  await wp.locator(".obj-row:not(.pending)").first().waitFor();
  return { middle, paged: await shown() };
}

async function journey() {
  mkdirSync(shots, { recursive: true });
  // Static serving over HTTP: the headers a browser gets.
  const idx = await fetch(`${base}/console/buckets/x`, { headers: { "Accept-Encoding": "gzip" } });
  check(idx.status === 200 && idx.headers.get("cache-control") === "no-cache", "index.html on a deep link, no-cache");
  check((idx.headers.get("content-security-policy") ?? "").includes("script-src 'self'"), "CSP on index.html");
  const html = await idx.text();
  const js = /src="(\/console\/assets\/app-[A-Z0-9]+\.js)"/.exec(html)?.[1];
  check(js, "index.html names the hashed bundle");
  const asset = await fetch(base + js, { headers: { "Accept-Encoding": "gzip" } });
  check(asset.headers.get("cache-control")?.includes("immutable") && asset.headers.get("content-type")?.startsWith("text/javascript"),
    "hashed asset: immutable, text/javascript");
  const trav = await fetch(`${base}/console/assets/..%2F..%2F..%2Fetc%2Fpasswd`);
  check(trav.status === 400, `traversal refused (got ${trav.status})`);
  step("static serving rules over HTTP");

  await seed();
  step("seeded buckets demo and paged");

  // Dashboard: live numbers from the feed while a load runs.
  const page = await newPage();
  await page.goto(`${base}/console/`);
  await page.locator('[data-testid=feed-status][data-status=live]').waitFor();
  let loading = true;
  const load = (async () => {
    let i = 0;
    while (loading) {
      await parallel(Array.from({ length: 16 }, (_, k) => `obj-${String((i * 16 + k) % kPaged).padStart(5, "0")}.txt`), 8,
        (n) => rest("GET", `/s3/paged/${n}`).then((r) => r.arrayBuffer()));
      await putObject("demo", `load/p-${i % 20}.bin`, Buffer.alloc(4096, i));
      i++;
    }
  })();
  await page.waitForFunction(() => {
    const c = document.querySelector("[data-testid=chart-throughput]");
    const get = document.querySelector("[data-testid=get-rate]")?.textContent ?? "";
    return c && Number(c.getAttribute("data-points")) >= 4 && !/^0 B\/s$/.test(get);
  });
  // A few seconds more of load (20 ticks of 250 ms), so the charts in the screenshot have a shape.
  await page.waitForFunction(() => Number(document.querySelector("[data-testid=chart-throughput]")?.getAttribute("data-points")) >= 24);
  const points = Number(await page.locator("[data-testid=chart-throughput]").getAttribute("data-points"));
  check(points >= 4, "the throughput chart gained points");
  check((await page.locator("[data-testid=node-card]").count()) === 4, "a card per node (proxy and 3 targets)");
  step(`dashboard live: ${points} points, GET ${await text(page, "[data-testid=get-rate]")}`);
  await shot(page, "dashboard");
  loading = false;
  await load;

  // Nodes.
  await page.click("nav >> text=Nodes");
  await page.waitForURL(/\/console\/nodes$/);
  check((await page.locator("[data-testid=nodes-table] tbody tr").count()) === 4, "four nodes in the table");
  await page.locator("[data-testid=nodes-table] tbody tr[data-state=online]").nth(3).waitFor();
  // A target's own charts (its URL), with the history the tab gathered.
  await page.locator("[data-testid=nodes-table] tbody tr").nth(1).locator("a").click();
  await page.waitForURL(/\/console\/nodes\/t/);
  await page.locator("[data-testid=node-detail] .chart").nth(1).waitFor();
  await shot(page, "nodes");

  // Buckets: create, upload by drop and by folder, read back.
  await page.click("nav >> text=Buckets");
  await page.fill("input[aria-label='new bucket name']", "web-new");
  await page.click("button:text('Create')");
  await page.waitForURL(/\/console\/buckets\/web-new$/);
  await page.locator("[data-testid=listing-state][data-complete=true]").waitFor();
  const dropped = [
    { name: "hello.txt", data: "hello from the browser\n" },
    { name: "data.json", data: JSON.stringify({ a: 1, b: [1, 2, 3] }) },
  ];
  await page.evaluate((files) => {
    const dt = new DataTransfer();
    for (const f of files) dt.items.add(new File([f.data], f.name));
    const zone = document.querySelector("[data-testid=object-rows]");
    zone.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, dropped);
  const folder = mkdtempSync(join(tmpdir(), "web-console-"));
  const nested = [["set/a.txt", "alpha"], ["set/deep/b.txt", "bravo".repeat(1000)], ["set/deep/er/c.bin", "c".repeat(200000)]];
  for (const [n, d] of nested) {
    mkdirSync(join(folder, n, ".."), { recursive: true });
    writeFileSync(join(folder, n), d);
  }
  await page.setInputFiles("input[data-testid=folder-input]", join(folder, "set"));
  await page.waitForFunction(() => /^5\/5 files/.test(document.querySelector("[data-testid=upload-total]")?.textContent ?? ""));
  for (const f of dropped) check((await readObject("web-new", f.name)).toString() === f.data, `read back ${f.name}`);
  for (const [n, d] of nested) check((await readObject("web-new", n)).toString() === d, `read back ${n}`);
  await page.locator("[data-testid=listing-state][data-complete=true]").waitFor();
  await page.locator(".obj-row.folder[data-name='set/']").waitFor();
  step("uploaded 5 files (2 dropped, a folder of 3 nested) and read them back equal");

  // Cancel one under way (the upload throttled to 256 KiB/s), then retry it.
  const { randomBytes: rnd } = await import("node:crypto");
  const big = rnd(2 << 20);
  writeFileSync(join(folder, "big.bin"), big);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  const throttle = (bps) => cdp.send("Network.emulateNetworkConditions",
    { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: bps });
  await throttle(256 * 1024);
  await page.setInputFiles("input[data-testid=file-input]", join(folder, "big.bin"));
  const bigRow = page.locator("[data-testid=uploads] li").filter({ hasText: "web-new/big.bin" });
  await page.waitForFunction(() => {
    const li = [...document.querySelectorAll("[data-testid=uploads] li")].find((l) => l.textContent.includes("big.bin"));
    return (li?.querySelector("progress")?.value ?? 0) > 0;
  });
  await bigRow.locator("button:text('Cancel')").click();
  check((await bigRow.getAttribute("data-state")) === "cancelled", "cancelled");
  const none = await fetch(`${base}/v1/objects/web-new/big.bin`, { method: "HEAD", redirect: "follow" });
  check(none.status === 404, `a cancelled upload leaves no object (HEAD ${none.status})`);
  await throttle(-1);
  await bigRow.locator("button:text('Retry')").click();
  await page.locator("[data-testid=uploads] li[data-state=done]").filter({ hasText: "web-new/big.bin" }).waitFor();
  check(Buffer.compare(await readObject("web-new", "big.bin"), big) === 0, "the retried upload reads back equal");
  await cdp.detach();
  step("a 2 MiB upload cancelled under way (nothing stored), retried, read back equal");
  await shot(page, "upload");

  // Paging to the end, then a server-side prefix search. The list is
  // virtual: after every page the DOM holds only the rows in view, and a
  // page's append is timed (the longest one is reported and bounded).
  await page.goto(`${base}/console/buckets/paged`);
  await page.locator("[data-testid=listing-state]").filter({ hasText: "1000 objects" }).waitFor();
  check((await page.locator("[data-testid=listing-state]").getAttribute("data-complete")) === "false", "first page: incomplete");
  const listed = () => page.locator("[data-testid=listing-state]").evaluate((el) => parseInt(el.textContent ?? "0", 10));
  const pagingStarted = Date.now();
  let slowest = 0;
  let mostRows = 0;
  let pages = 1;
  for (let i = 0; i < kPagedTotal / 1000 + 5; i++) {
    if ((await page.locator("[data-testid=listing-state]").getAttribute("data-complete")) === "true") break;
    const before = await listed();
    const t0 = Date.now();
    await page.locator("[data-testid=object-rows]").evaluate((el) => (el.scrollTop = el.scrollHeight));
    await page.waitForFunction((n) => {
      const el = document.querySelector("[data-testid=listing-state]");
      return el?.getAttribute("data-complete") === "true" || parseInt(el?.textContent ?? "0", 10) > n;
    }, before);
    // The rows drawn once the page is in, and a frame later (the append rendered).
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
    slowest = Math.max(slowest, Date.now() - t0);
    mostRows = Math.max(mostRows, await page.locator(".obj-row").count());
    pages++;
  }
  await page.locator("[data-testid=listing-state][data-complete=true]").waitFor();
  const all = await text(page, "[data-testid=listing-state]");
  check(all.startsWith(`${kPagedTotal} objects`) && all.includes("listing complete"), `paged to the end: ${all}`);
  check(mostRows < 100, `only the rows in view are drawn at every page (at most ${mostRows})`);
  check(slowest < 5000, `each page appended within 5 s (slowest ${slowest} ms)`);
  // Scrolling back through the 20,000 rows: a jump to the middle draws the rows there.
  await page.locator("[data-testid=object-rows]").evaluate((el) => (el.scrollTop = 10000 * 28));
  await page.locator(".obj-row[data-name='obj-10000.txt']").waitFor();
  check((await page.locator(".obj-row").count()) < 100, "the middle of the list: only the rows in view");
  // Only the rows in view are in the DOM: the folder sorts last.
  await page.locator("[data-testid=object-rows]").evaluate((el) => (el.scrollTop = el.scrollHeight));
  await page.locator(".obj-row.folder[data-name='sub/']").waitFor();
  check((await page.locator(".obj-row").count()) < 100, "only the rows in view are drawn");
  step(`paged: ${all}; ${pages} pages in ${((Date.now() - pagingStarted) / 1000).toFixed(1)} s, slowest page ${slowest} ms, at most ${mostRows} rows in the DOM`);
  await windowedListing();
  await page.fill("input[type=search]", "obj-010");
  await page.click("button:text('Search')");
  await page.waitForURL(/q=obj-010/);
  // The new listing's state (the old one's may still be drawn right after the URL changed).
  await page.locator("[data-testid=listing-state][data-complete=true]").filter({ hasText: "starting with" }).waitFor();
  const narrowed = await text(page, "[data-testid=listing-state]");
  check(narrowed.startsWith("100 objects"), `prefix search narrowed: ${narrowed}`);
  await shot(page, "buckets");

  // Previews: JSON, text, image, hex; then the shard.
  const preview = async (name, testid) => {
    await page.goto(`${base}/console/buckets/demo?object=${encodeURIComponent(name)}`);
    await page.locator(`[data-testid=${testid}]`).waitFor();
  };
  await preview("meta/info.json", "preview-json");
  check((await text(page, "[data-testid=preview-json]")).includes('"dataset": "demo"'), "JSON pretty-printed");
  await preview("notes.txt", "preview-text");
  await preview("big.txt", "preview-text");
  const cut = await text(page, "[data-testid=preview-info]");
  check(cut === "first 1.0 MiB of 1.5 MiB (truncated at the preview limit)", `a big object cut at the cap: ${cut}`);
  await preview("blob.bin", "preview-hex");
  check((await text(page, "[data-testid=preview-hex]")).startsWith("00000000  00 07 0e 15"), "hex dump");
  // Auth off, Download is a plain link the browser streams to disk.
  check((await page.locator("a[data-testid=download]").getAttribute("href")) === "/s3/demo/blob.bin", "Download is a link without auth");
  const [plainDownload] = await Promise.all([page.waitForEvent("download"), page.click("[data-testid=download]")]);
  const { readFileSync: readDownload } = await import("node:fs");
  check(Buffer.compare(readDownload(await plainDownload.path()), Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 7) % 256))) === 0,
    "the plain download is the object's bytes");
  await preview("images/cat.png", "preview-image");
  await page.waitForFunction(() => document.querySelector("[data-testid=preview-image]")?.naturalWidth === 64);
  await shot(page, "preview");
  await page.goto(`${base}/console/buckets/demo?prefix=shards%2F&object=${encodeURIComponent("shards/shard-0000.tar")}`);
  await page.locator("[data-testid=sample-row]").nth(7).waitFor();
  check((await page.locator("[data-testid=sample-row]").count()) === 8, "one row per sample");
  await page.waitForFunction(() => [...document.querySelectorAll("[data-testid=sample-row] img.thumb")].filter((i) => i.naturalWidth === 32).length === 8);
  for (let i = 0; i < 8; i++) {
    const row = page.locator(`[data-testid=sample-row][data-key=sample-${String(i).padStart(4, "0")}]`);
    check((await row.locator("td[data-field=cls]").innerText()) === labels[i], `label of sample ${i}`);
  }
  check((await page.locator("[data-testid=sample-row][data-key=sample-0005] td.flags").innerText()).includes("missing: json"), "flags a missing field");
  step("shard preview: 8 samples, thumbnails and labels");
  await shot(page, "shard");

  // Destroy with confirmation naming the bucket.
  await page.goto(`${base}/console/buckets/web-new`);
  await page.click("button[aria-label='destroy bucket web-new']");
  const dialog = page.locator("[data-testid=destroy-dialog]");
  check((await dialog.innerText()).includes("web-new"), "the dialog names the bucket");
  check(await dialog.locator("button.danger").isDisabled(), "destroy disabled before the name is typed");
  await dialog.locator("input").fill("web-new");
  await dialog.locator("button.danger").click();
  await page.waitForURL(/\/console\/buckets$/);
  await page.locator("[data-bucket=web-new]").waitFor({ state: "detached" });
  const gone = await fetch(`${base}/v1/buckets/web-new`, { method: "HEAD" });
  check(gone.status === 404, `bucket destroyed (HEAD ${gone.status})`);
  step("destroyed web-new after typing its name");

  // dSort composed on the page: a field error, the dry run's plan, Start, finished.
  await rest("POST", "/v1/buckets/sorted", JSON.stringify({ action: "create-bck" }));
  await page.goto(`${base}/console/sort`);
  const field = (path) => page.locator(`[data-field='${path}'] input, [data-field='${path}'] select`).first();
  await field("input_bck").fill("demo");
  await field("input_format/template").fill("shards/shard-{0000..0000}");
  await field("output_bck").fill("sorted");
  await field("output_format").fill("sorted-{00..99}");
  await field("output_shard_size").fill("12 parsecs");
  await field("algorithm/kind").selectOption("shuffle");
  await page.click("button:text('Preview (dry run)')");
  const sizeError = await page.locator("[data-field=output_shard_size] .field-error").innerText();
  check(/parsecs/.test(sizeError), `the size error is on its field: ${sizeError}`);
  await field("output_shard_size").fill("4 records");
  check((await page.locator("[data-testid=spec-text]").inputValue()).includes('"output_shard_size": "4 records"'), "the form writes the spec");
  await page.click("button:text('Preview (dry run)')");
  await page.locator("[data-testid=plan-shard]").nth(1).waitFor();
  check((await page.locator("[data-testid=plan-shard]").count()) === 2, "8 records in shards of 4: 2 output shards");
  check((await page.locator("[data-testid=spec-text]").inputValue()).includes('"seed"'), "the dry run's seed is in the spec");
  await shot(page, "dsort");
  await page.click("button:text('Start')");
  await page.waitForURL(/\/console\/jobs\/[^/]+$/);
  const dsortId = decodeURIComponent(new URL(page.url()).pathname.split("/").pop());
  await page.locator(`tr[data-job='${dsortId}'][data-state=finished]`).waitFor();
  const sorted = await (await rest("GET", "/v1/buckets/sorted")).json();
  check(sorted.entries.map((e) => e.name).join(",") === "sorted-00.tar,sorted-01.tar", `dSort wrote its plan's shards: ${JSON.stringify(sorted.entries)}`);
  step(`dSort ${dsortId} composed on the page: finished, 2 shards`);

  // ishard composed on the page, then aborted from the jobs page (Keep running first).
  await rest("POST", "/v1/buckets/raw", JSON.stringify({ action: "create-bck" }));
  await rest("POST", "/v1/buckets/raw-shards", JSON.stringify({ action: "create-bck" }));
  const { randomBytes } = await import("node:crypto");
  const raw = [];
  for (let i = 0; i < 96; i++) raw.push([`s${1000 + i}.bin`, randomBytes(1 << 20)], [`s${1000 + i}.cls`, Buffer.from(String(i % 10))]);
  await parallel(raw, 8, ([n, data]) => putObject("raw", n, data));
  await page.goto(`${base}/console/ishard`);
  await field("src_bck").fill("raw");
  await field("dst_bck").fill("raw-shards");
  await field("shard_size").fill("");
  await field("sample_count").fill("1");
  await field("ext").selectOption(".tgz");
  await page.click("button:text('Preview (dry run)')");
  await page.locator("[data-testid=plan-shard]").nth(95).waitFor();
  await shot(page, "ishard");
  await page.click("button:text('Start')");
  await page.waitForURL(/\/console\/jobs\/ishard-/);
  const ishardId = decodeURIComponent(new URL(page.url()).pathname.split("/").pop());
  const row = page.locator(`tr[data-job='${ishardId}']`);
  await row.locator("button:text('Abort…')").click();
  check((await row.locator(".confirm").innerText()).includes(ishardId), "the confirmation names the job");
  await row.locator("button:text('Keep running')").click();
  check((await row.locator(".confirm").count()) === 0, "Keep running closes the question");
  await row.locator("button:text('Abort…')").click();
  await row.locator(".confirm button:text('Abort')").click();
  await page.locator(`tr[data-job='${ishardId}'][data-state=aborted]`).waitFor();
  const aborted = await (await rest("GET", `/v1/jobs/${ishardId}`)).json();
  check(aborted.state === "aborted", `the cluster says aborted: ${aborted.state}`);
  step(`ishard ${ishardId} aborted from the jobs page after ${aborted.progress.objects_done} objects`);
  await shot(page, "jobs");

  // Every page in light and dark, 1280 and 768 px wide (light 1280 was
  // taken above, in the middle of the work): web-<page>[-dark][-768].png.
  // Each page is loaded once per theme and shot at both widths (a resize,
  // not a reload: the dashboard keeps its points); a load runs meanwhile so
  // the charts have a shape. At 768 px no page scrolls sideways; dark
  // follows the system.
  const pagesToShoot = [
    ["dashboard", "/console/", async (p) => {
      await p.locator("[data-testid=feed-status][data-status=live]").waitFor();
      await p.waitForFunction(() => Number(document.querySelector("[data-testid=chart-throughput]")?.getAttribute("data-points")) >= 24);
    }],
    ["nodes", "/console/nodes", (p) => p.locator("[data-testid=nodes-table] tbody tr").first().waitFor()],
    ["jobs", `/console/jobs/${ishardId}`, (p) => p.locator("[data-testid=job-detail]").waitFor()],
    ["buckets", "/console/buckets/demo?object=meta%2Finfo.json", (p) => p.locator("[data-testid=preview-json]").waitFor()],
    ["shard", `/console/buckets/demo?prefix=shards%2F&object=${encodeURIComponent("shards/shard-0000.tar")}`, (p) =>
      p.waitForFunction(() => [...document.querySelectorAll("[data-testid=sample-row] img.thumb")].filter((i) => i.naturalWidth === 32).length === 8)],
    ["dsort", "/console/sort", (p) => p.locator("[data-testid=spec-text]").waitFor()],
    ["ishard", "/console/ishard", (p) => p.locator("[data-testid=spec-text]").waitFor()],
  ];
  let shooting = true;
  const shotLoad = (async () => {
    for (let i = 0; shooting; i++) {
      await parallel(Array.from({ length: 16 }, (_, k) => `obj-${String((i * 16 + k) % kPaged).padStart(5, "0")}.txt`), 8,
        (n) => rest("GET", `/s3/paged/${n}`).then((r) => r.arrayBuffer()));
      await putObject("demo", `load/p-${i % 20}.bin`, Buffer.alloc(4096, i));
    }
  })();
  for (const scheme of ["light", "dark"]) {
    const sp = await newPage({ colorScheme: scheme });
    for (const [name, path, ready] of pagesToShoot) {
      let loaded = false;
      for (const width of [1280, 768]) {
        if (scheme === "light" && width === 1280) continue;
        await sp.setViewportSize({ width, height: width === 768 ? 1024 : 800 });
        if (!loaded) await sp.goto(base + path);
        loaded = true;
        await ready(sp);
        // The charts follow their box's new width on the next frames.
        await sp.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
        if (width === 768) {
          check(await sp.evaluate(() => document.documentElement.scrollWidth <= 768), `${name}: no horizontal scroll at 768 px`);
        }
        if (scheme === "dark") {
          check(await sp.evaluate(() => getComputedStyle(document.body).backgroundColor !== "rgb(246, 247, 249)"), `${name}: dark theme follows the system`);
        }
        await shot(sp, `${name}${scheme === "dark" ? "-dark" : ""}${width === 768 ? "-768" : ""}`);
      }
    }
    await sp.close();
  }
  shooting = false;
  await shotLoad;

  // Keyboard: Tab from the top of the Buckets page reaches every control.
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${base}/console/buckets/demo`);
  await page.locator("[data-testid=listing-state][data-complete=true]").waitFor();
  const reached = new Set();
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press("Tab");
    reached.add(await page.evaluate(() => {
      const e = document.activeElement;
      return e ? e.getAttribute("aria-label") ?? e.getAttribute("data-testid") ?? e.textContent?.trim().slice(0, 20) ?? e.tagName : "";
    }));
  }
  for (const want of ["Dashboard", "Jobs", "new bucket name", "destroy bucket demo", "search names by prefix", "Search",
    "file-input", "folder-input", "object-rows", "blob.bin300 B"]) {
    check(reached.has(want), `Tab reaches "${want}" (reached: ${[...reached].join(" | ")})`);
  }
  await page.locator("[aria-label='search names by prefix']").focus();
  for (let i = 0; i < 20; i++) {
    if (await page.evaluate(() => document.activeElement?.getAttribute("data-name") === "blob.bin")) break;
    await page.keyboard.press("Tab");
  }
  await page.keyboard.press("Enter");
  await page.locator("[data-testid=preview-hex]").waitFor();
  check(page.url().includes("object=blob.bin"), `Enter on a row opens its preview and URL: ${page.url()}`);
  step("keyboard: every control reached with Tab, Enter opens an object");

  // Bucket properties (from HEAD /v1/buckets/<b>): the Properties button
  // opens them in the URL; erasure coding set over REST shows in words; the
  // count comes from the usage scan.
  await rest("PATCH", "/v1/buckets/sorted", JSON.stringify({ action: "set-bprops", value: { ec: { enabled: true, data_slices: 1, parity_slices: 1 } } }));
  await page.goto(`${base}/console/buckets/sorted`);
  await page.click("button:text('Properties')");
  await page.waitForURL(/props=1/);
  await page.locator("[data-testid=props-protection]").filter({ hasText: "erasure coded: 1 data + 1 parity slices" }).waitFor();
  await page.locator("[data-testid=props-objects]").filter({ hasText: /^2 objects, 25 KiB/ }).waitFor();
  check((await text(page, "[data-testid=props-access]")) === "auth is off: every caller may do everything", "access with auth off");
  // Changing the protection on the page (PATCH set-bprops): a value the
  // cluster refuses is shown on its field and changes nothing; the change
  // that starts a reprotect job asks first (Cancel changes nothing); once
  // applied, the job it started is linked and followed to finished, and the
  // properties read back changed.
  const headProps = async (b) => JSON.parse((await rest("HEAD", `/v1/buckets/${b}`)).headers.get("ais-bucket-props"));
  await page.goto(`${base}/console/buckets/demo?props=1`);
  const form = page.locator("[data-testid=props-form]");
  await page.locator("[data-testid=props-protection]").filter({ hasText: "one copy" }).waitFor();
  check(await form.locator("[data-testid=props-apply]").isDisabled(), "Apply is disabled while nothing changed");
  await form.locator("input[value=mirror]").check();
  await form.locator("input[aria-label=copies]").fill("4");
  await form.locator("[data-testid=props-apply]").click();
  const confirmBox = page.locator("[data-testid=props-confirm]");
  const asked4 = await confirmBox.innerText();
  check(asked4.includes("“demo”") && asked4.includes("makes 4 copies of every object"), `the confirmation says what the job does: ${asked4}`);
  await confirmBox.locator("button:text('Apply and start the job')").click();
  const copiesError = await page.locator("[data-field=copies] [data-testid=props-error-copies]").innerText();
  check(/^mirror\.copies is 4 but the cluster has 3 target/.test(copiesError), `the cluster's refusal on the copies field: ${copiesError}`);
  check(!(await headProps("demo")).mirror.enabled, "a refused change changes nothing");
  await form.locator("input[aria-label=copies]").fill("2");
  check((await page.locator("[data-testid=props-error-copies]").count()) === 0, "editing the field clears its error");
  await form.locator("[data-testid=props-apply]").click();
  check((await confirmBox.innerText()).includes("makes 2 copies"), "asked again for 2 copies");
  await confirmBox.locator("button:text('Cancel')").click();
  check((await confirmBox.count()) === 0 && !(await headProps("demo")).mirror.enabled, "Cancel changes nothing");
  await form.locator("[data-testid=props-apply]").click();
  await confirmBox.locator("button:text('Apply and start the job')").click();
  const jobLink = page.locator("[data-testid=props-job]");
  await jobLink.waitFor();
  const reprotectId = await jobLink.innerText();
  await page.locator("[data-testid=props-job-state][data-state=finished]").waitFor({ timeout: 60000 });
  const reprotect = await (await rest("GET", `/v1/jobs/${encodeURIComponent(reprotectId)}`)).json();
  check(reprotect.kind === "reprotect" && reprotect.state === "finished", `the job the change started: ${reprotect.kind} ${reprotect.state}`);
  const mirrored = await headProps("demo");
  check(mirrored.mirror.enabled && Number(mirrored.mirror.copies) === 2, `read back: ${JSON.stringify(mirrored.mirror)}`);
  await page.locator("[data-testid=props-protection]").filter({ hasText: "2 copies across targets" }).waitFor();
  check(await form.locator("[data-testid=props-apply]").isDisabled(), "the form follows the new properties");
  await page.mouse.move(0, 0);  // no row under the pointer in the screenshot
  await shot(page, "bucket-props");
  for (const [scheme, width] of [["light", 768], ["dark", 1280], ["dark", 768]]) {
    const sp = await newPage({ colorScheme: scheme, viewport: { width, height: width === 768 ? 1024 : 800 } });
    await sp.goto(`${base}/console/buckets/demo?props=1`);
    await sp.locator("[data-testid=props-form] input[aria-label=copies]").waitFor();
    check(await sp.evaluate(() => document.documentElement.scrollWidth <= innerWidth), `bucket properties: no horizontal scroll at ${width} px`);
    await shot(sp, `bucket-props${scheme === "dark" ? "-dark" : ""}${width === 768 ? "-768" : ""}`);
    await sp.close();
  }
  step(`protection changed on the page: 4 copies refused on the field, Cancel, then 2 copies: ${reprotectId} finished, read back`);
  await jobLink.click();
  await page.waitForURL(/\/console\/jobs\/reprotect/);
  await page.locator(`tr[data-job='${reprotectId}'][data-state=finished]`).waitFor();
  await page.goto(`${base}/console/buckets/demo?props=1`);
  await page.click("button[aria-label='close the properties']");
  await page.locator("[data-testid=bucket-props]").waitFor({ state: "detached" });
  check(!page.url().includes("props="), `closing the properties leaves the URL: ${page.url()}`);
  step("bucket properties: erasure coding, the scan's count, access");

  // The 20,000 objects go with their bucket (the targets delete the files;
  // measured, since it is most of what the cluster's teardown would cost).
  const destroyStarted = Date.now();
  await rest("DELETE", "/v1/buckets/paged");
  step(`destroyed the 20,000-object bucket in ${((Date.now() - destroyStarted) / 1000).toFixed(1)} s`);

  // The feed dropped under the page: it says so, retries, and is live again.
  const rp = await newPage();
  let feedSocket = null;
  let feedConnects = 0;
  await rp.routeWebSocket(/\/v1\/ws$/, (ws) => {
    feedConnects++;
    ws.connectToServer();
    feedSocket = ws;
  });
  await rp.goto(`${base}/console/`);
  await rp.locator("[data-testid=feed-status][data-status=live]").waitFor();
  await feedSocket.close({ code: 1011, reason: "test drops the feed" });
  await rp.locator("[data-testid=feed-status][data-status=retrying]").waitFor();
  const retrying = await rp.locator("[data-testid=feed-status]").innerText();
  check(/feed lost: test drops the feed; reconnecting/.test(retrying), `the status says the feed is lost: ${retrying}`);
  await rp.locator("[data-testid=feed-status][data-status=live]").waitFor();
  check(feedConnects === 2, `one reconnect (${feedConnects} connections)`);
  await rp.close();
  step("feed dropped: 'reconnecting', then live again");

  // A killed target turns stale, then away, on the nodes page.
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${base}/console/nodes`);
  await page.locator("[data-testid=nodes-table] tbody tr[data-state=online]").nth(3).waitFor();
  process.kill(killPid, "SIGKILL");
  await page.locator("[data-testid=nodes-table] tbody tr[data-state=stale], [data-testid=nodes-table] tbody tr[data-state=away]").first().waitFor();
  await page.locator("[data-testid=nodes-table] tbody tr[data-state=away]").waitFor();
  step("killed target: away on the nodes page");
  await shot(page, "nodes-away");

  // Its event on the dashboard, found by the severity and text filters.
  const awayId = await page.locator("[data-testid=nodes-table] tbody tr[data-state=away]").getAttribute("data-node");
  await page.click("nav >> text=Dashboard");
  await page.selectOption("select[aria-label='event severity']", "errors");
  await page.locator("[data-testid=events] li.sev-error").filter({ hasText: awayId }).first().waitFor();
  check(await page.locator("[data-testid=events] li").evaluateAll((lis) => lis.every((li) => li.classList.contains("sev-error"))),
    "errors only: every event listed is an error");
  await page.fill("input[aria-label='filter events']", awayId);
  check(await page.locator("[data-testid=events] li").evaluateAll((lis, id) => lis.length > 0 && lis.every((li) => li.textContent.includes(id)), awayId),
    "the text filter keeps the events naming the target");
  step(`events: the away target ${awayId}'s error found by the filters`);

  check(problems.length === 0, `no console errors or CSP violations: ${problems.join(" | ")}`);
  console.log(`ok web console (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

try {
  await (mode === "auth" ? authJourney() : journey());
} finally {
  await browser.close();
}

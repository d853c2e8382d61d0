// The web console's ETL and Access pages in headless Debian Chromium
// (playwright-core), against a real cluster started by test_web_console_admin:
// what a user does, checked on the page and on the cluster. Writes
// docs/images/web-etl*.png and web-access*.png.
// Usage: node web_console_admin.mjs --url http://127.0.0.1:PORT --modules DIR
//          --chromium /usr/bin/chromium --shots DIR --part etl|access
// Prints "ok web console <part>" at the end; any failure throws with what differed.
import { createRequire } from "node:module";
import { createHash, randomBytes } from "node:crypto";
import { execFile } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";

const arg = (name) => {
  const i = process.argv.indexOf(name);
  if (i < 0 || i + 1 >= process.argv.length) throw new Error(`missing ${name}`);
  return process.argv[i + 1];
};
const base = arg("--url");
const { chromium } = createRequire(join(arg("--modules"), "noop.js"))("playwright-core");
const shots = arg("--shots");
const part = arg("--part");
const kTimeout = 20000;
const started = Date.now();
const step = (what) => console.log(`${((Date.now() - started) / 1000).toFixed(1)}s ${what}`);
function check(cond, what) {
  if (!cond) throw new Error(`check failed: ${what}`);
}

// ---- the cluster, outside the browser --------------------------------------
async function rest(method, path, body, token) {
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  const r = await fetch(base + path, { method, body, headers, redirect: "follow" });
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
  return r;
}
const enc = (name) => name.split("/").map(encodeURIComponent).join("/");
// Through the S3 path, which the proxy relays (no redirect to replay the body on).
const putObject = (bucket, name, data, token) => rest("PUT", `/s3/${bucket}/${enc(name)}`, data, token);
async function readObject(bucket, name, token) {
  return Buffer.from(await (await rest("GET", `/v1/objects/${bucket}/${enc(name)}`, undefined, token)).arrayBuffer());
}
async function listNames(bucket, token) {
  const page = await (await rest("GET", `/v1/buckets/${bucket}?props=name`, undefined, token)).json();
  return (page.entries ?? []).map((e) => e.name).sort();
}
async function login(user, password) {
  return (await rest("POST", "/v1/tokens", JSON.stringify({ user, password }))).json();
}

// ---- the browser -----------------------------------------------------------
// --no-sandbox: the tests run as root (CI); /dev/shm may be small in containers.
const browser = await chromium.launch({ executablePath: arg("--chromium"), headless: true,
  args: ["--no-sandbox", "--disable-dev-shm-usage"] });
const problems = [];
// Refusals the test asks for, which Chromium logs as failed resources.
const expectedRefusals = [];
async function newPage(opts = {}, session = null) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: "light",
    ignoreHTTPSErrors: base.startsWith("https:"), ...opts });
  // A tab already signed in (the token pair a sign-in leaves in sessionStorage).
  if (session) await ctx.addInitScript((s) => sessionStorage.setItem("tessera.token", s), JSON.stringify(session));
  const page = await ctx.newPage();
  page.setDefaultTimeout(kTimeout);
  page.on("console", (m) => {
    const url = m.location().url ?? "";
    const expected = /status of (400|401|403|409)/.test(m.text()) && expectedRefusals.some((re) => re.test(url));
    if (m.type() === "error" && !expected) problems.push(`console: ${m.text()} (${url})`);
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  return page;
}
const shot = async (page, name) => {
  await page.screenshot({ path: join(shots, `web-${name}.png`), fullPage: true });
  step(`screenshot web-${name}.png`);
};
const text = (page, sel) => page.locator(sel).first().innerText();
const noHorizontalScroll = (page) => page.evaluate(() => document.documentElement.scrollWidth <= innerWidth);

// The page in the three other looks (light 768, dark 1280, dark 768): a
// fresh tab each, at `url`, ready when `ready` (a selector or several) shows.
async function otherLooks(name, url, ready, session = null) {
  for (const [scheme, width] of [["light", 768], ["dark", 1280], ["dark", 768]]) {
    const p = await newPage({ colorScheme: scheme, viewport: { width, height: width === 768 ? 1024 : 800 } }, session);
    await p.goto(url);
    for (const sel of [ready].flat()) await p.locator(sel).first().waitFor({ state: "attached" });
    check(await noHorizontalScroll(p), `${name}: no horizontal scroll at ${width} px (${scheme})`);
    if (scheme === "dark") {
      const bg = await p.evaluate(() => getComputedStyle(document.body).backgroundColor);
      check(bg === "rgb(15, 20, 25)", `${name}: the dark theme followed (body ${bg})`);
    }
    await shot(p, `${name}${scheme === "dark" ? "-dark" : ""}${width === 768 ? "-768" : ""}`);
    await p.context().close();
  }
}

// ---- auth off: the ETL page --------------------------------------------------
async function etlPart() {
  const kCount = 6;
  await rest("POST", "/v1/buckets/etl-src", JSON.stringify({ action: "create-bck" }));
  const sources = new Map();
  for (let i = 0; i < kCount; i++) {
    const data = randomBytes(1000 + i * 997);
    sources.set(`img/${i}.txt`, data);
    await putObject("etl-src", `img/${i}.txt`, data);
  }
  await putObject("etl-src", "other.txt", Buffer.from("not under the prefix"));

  const page = await newPage();
  await page.goto(`${base}/console/etl`);
  await page.locator("[data-testid=etl-table] >> text=no transformer on the cluster").waitFor();
  // With auth off the navigation has no Access link, and the page explains why.
  check(await page.locator("nav a", { hasText: "Access" }).count() === 0, "no Access in the navigation with auth off");

  // A bad name: the proxy's refusal on the name field, and nothing created.
  expectedRefusals.push(/\/v1\/etl$/);
  await page.fill("#etl-f-name", "Bad Name");
  await page.fill("#etl-f-command", "md5");
  await page.click("form[aria-label='ETL spec form'] button:text('Init')");
  const nameError = await text(page, "[data-field=name] .field-error");
  check(nameError.includes("is not a valid ETL name"), `the bad name refused on its field: ${nameError}`);
  check((await (await rest("GET", "/v1/etl")).json()).length === 0, "a refused spec creates nothing");
  // The JSON side follows the form, and the form follows the JSON.
  const specText = JSON.parse(await page.inputValue("[data-testid=etl-spec-text]"));
  check(specText.name === "Bad Name" && JSON.stringify(specText.command) === '["md5"]', `the spec text follows the form: ${JSON.stringify(specText)}`);
  await page.fill("[data-testid=etl-spec-text]", JSON.stringify({ ...specText, name: "md5web", obj_timeout: "45s" }, null, 2));
  check(await page.inputValue("#etl-f-name") === "md5web" && await page.inputValue("#etl-f-obj_timeout") === "45s",
    "the form follows the spec text");
  await page.click("form[aria-label='ETL spec form'] button:text('Init')");
  await page.waitForURL(/\/console\/etl\/md5web$/);
  await page.locator("[data-testid=etl-table] tr[data-etl=md5web][data-stage=running]").waitFor();
  await page.locator("[data-testid=etl-detail][data-etl=md5web] [data-testid=etl-detail-stage]", { hasText: "running" }).waitFor();
  const listed = await (await rest("GET", "/v1/etl")).json();
  check(listed.length === 1 && listed[0].name === "md5web" && listed[0].stage === "running", `the cluster runs md5web: ${JSON.stringify(listed)}`);
  check((await text(page, "[data-testid=etl-detail-spec]")).includes('"obj_timeout": "45s"'), "the detail shows the spec as the cluster keeps it");
  step("ETL md5web composed on the page (a bad name refused on its field first) and running on every target");

  // The offline job: etl-src/img/* into etl-out, .txt renamed .md5.
  await page.fill("#etl-run-src", "etl-src");
  await page.fill("#etl-run-dst", "etl-out");
  await page.fill("#etl-run-where", "img/");
  await page.fill("#etl-run-ext", "txt:md5");
  await page.click("form[aria-label='run on bucket'] button:text('Run')");
  await page.locator("[data-testid=etl-job]").waitFor();
  await page.locator("[data-testid=etl-job][data-state=finished]").waitFor({ timeout: 60000 });
  const jobLine = await text(page, "[data-testid=etl-job]");
  check(jobLine.includes(`finished · ${kCount} of ${kCount} objects`), `the job line: ${jobLine}`);
  const names = await listNames("etl-out");
  const want = [...sources.keys()].map((n) => n.replace(/\.txt$/, ".md5")).sort();
  check(JSON.stringify(names) === JSON.stringify(want), `etl-out holds exactly ${want.join(", ")}: ${names.join(", ")}`);
  for (const [name, data] of sources) {
    const got = (await readObject("etl-out", name.replace(/\.txt$/, ".md5"))).toString();
    const md5 = createHash("md5").update(data).digest("hex");
    check(got === md5, `etl-out/${name}: the MD5 of the source (${md5}), got ${got}`);
  }
  check((await page.locator("[data-testid=etl-output]").getAttribute("href")) === "/console/buckets/etl-out", "a link to the output bucket");
  step(`offline job ${jobLine.split(":")[0]} finished; the ${kCount} outputs are the sources' MD5s`);
  // The job's end reads the transformers again: md5web counts the 6 objects.
  await page.waitForFunction((n) => document.querySelector("[data-testid=etl-table] tr[data-etl=md5web] td.num")?.textContent === n, String(kCount));
  await shot(page, "etl");
  await otherLooks("etl", `${base}/console/etl/md5web`,
    ["[data-testid=etl-table] tr[data-etl=md5web]", "[data-testid=etl-detail-spec]", "#etl-run-etl option[value=md5web]"]);

  // The keyboard reaches the form: Tab from the top of the page to the name field.
  await page.goto(`${base}/console/etl`);
  await page.locator("[data-testid=etl-table] tr[data-etl=md5web]").waitFor();
  let reached = false;
  for (let i = 0; i < 60 && !reached; i++) {
    await page.keyboard.press("Tab");
    reached = await page.evaluate(() => document.activeElement?.id === "etl-f-name");
  }
  check(reached, "Tab reaches the ETL name field");

  // Stop and start again; each target's log.
  await page.click("[data-testid=etl-table] a:text('md5web')");
  await page.waitForURL(/\/console\/etl\/md5web$/);
  const etlStage = async () => (await (await rest("GET", "/v1/etl/md5web")).json()).stage;
  await page.click("[data-testid=etl-detail] button:text('Stop')");
  await page.locator("[data-testid=etl-detail-stage]", { hasText: "stopped" }).waitFor();
  check(await etlStage() === "stopped", "Stop stops md5web on the cluster");
  await page.click("[data-testid=etl-detail] button:text('Start')");
  await page.locator("[data-testid=etl-detail-stage]", { hasText: "running" }).waitFor();
  check(await etlStage() === "running", "Start runs md5web again");
  await page.click("[data-testid=etl-detail] button:text('Logs')");
  await page.locator("[data-testid=etl-logs] details").nth(1).waitFor();
  check(await page.locator("[data-testid=etl-logs] details").count() === 2, "a log per target");
  step("md5web stopped and started from the page; each target's log shown");

  // Remove, after a confirmation naming the transformer (Keep first).
  await page.click("[data-testid=etl-detail] button:text('Remove…')");
  const question = await text(page, "[data-testid=etl-detail] [role=alertdialog]");
  check(question.includes("Remove transformer md5web?"), `the confirmation names the transformer: ${question}`);
  await page.click("[data-testid=etl-detail] button:text('Keep')");
  check((await (await rest("GET", "/v1/etl")).json()).length === 1, "Keep removes nothing");
  await page.click("[data-testid=etl-detail] button:text('Remove…')");
  await page.click("[data-testid=etl-detail] [role=alertdialog] button:text('Remove')");
  await page.waitForURL(/\/console\/etl$/);
  await page.locator("[data-testid=etl-table] >> text=no transformer on the cluster").waitFor();
  check((await (await rest("GET", "/v1/etl")).json()).length === 0, "md5web is gone from the cluster");
  step("md5web removed after the confirmation");

  await page.goto(`${base}/console/access`);
  check((await text(page, "[data-testid=access-reason]")).includes("auth off"), "the Access page explains auth is off");
  check(problems.length === 0, `no console errors or CSP violations: ${problems.join(" | ")}`);
  console.log(`ok web console etl (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

// ---- auth on: the Access page ------------------------------------------------
// boto3 against the proxy's S3 front end with a key: the object's bytes, or
// the S3 error code.
function s3Get(accessKey, secret, bucket, key) {
  const script = `
import sys, boto3, botocore
from botocore.config import Config
s3 = boto3.client("s3", endpoint_url=sys.argv[1], region_name="us-east-1", aws_access_key_id=sys.argv[2],
                  aws_secret_access_key=sys.argv[3],
                  config=Config(s3={"addressing_style": "path"}, signature_version="s3v4", retries={"max_attempts": 1}))
try:
    sys.stdout.write(s3.get_object(Bucket=sys.argv[4], Key=sys.argv[5])["Body"].read().decode())
except botocore.exceptions.ClientError as e:
    sys.stdout.write("ERROR " + e.response["Error"]["Code"])
`;
  return new Promise((resolve, reject) => {
    execFile("python3", ["-c", script, `${base}/s3`, accessKey, secret, bucket, key], (err, stdout, stderr) => {
      if (err) reject(new Error(`boto3: ${err.message} ${stderr}`));
      else resolve(stdout);
    });
  });
}

async function accessPart() {
  const adminTokens = await login("admin", "admin-password-1");
  const adminToken = adminTokens.token;
  await rest("POST", "/v1/buckets/shared", JSON.stringify({ action: "create-bck" }), adminToken);
  const notes = "shared notes, readable with a grant\n";
  await putObject("shared", "notes.txt", notes, adminToken);
  // Asked for: a taken name, alice's refused ETL list, her session ended,
  // the probe every load makes without a token (is auth on?), and the job
  // list the feed reads after its snapshot, which is for admins (a 403 for
  // alice; the page goes on without it).
  expectedRefusals.push(/\/v1\/users$/, /\/v1\/etl$/, /\/v1\/whoami$/, /\/v1\/tokens\/refresh$/, /\/v1\/buckets(\/shared.*)?$/,
    /\/s3\/shared\//, /\/v1\/ws$/, /\/v1\/cluster\?what=smap$/, /\/v1\/jobs$/);

  // The admin signs in on the form and opens Access.
  const page = await newPage();
  await page.goto(`${base}/console/access`);
  await page.fill("input[autocomplete=username]", "admin");
  await page.fill("input[autocomplete=current-password]", "admin-password-1");
  await page.click("button:text('Sign in')");
  await page.locator("[data-testid=users] tr[data-user=admin]").waitFor();
  check((await text(page, "[data-testid=session]")).includes("Signed in as admin (admin)"), "the session names the admin");

  // Add a user: the password rule on its field before anything is sent, a
  // taken name refused by the server on the name field, then the user.
  await page.fill("#user-name", "alice");
  await page.fill("#user-password", "short");
  await page.fill("#user-repeated", "short");
  await page.click("form[aria-label='add user'] button:text('Add user')");
  check((await text(page, "[data-field=password] .field-error")) === "a password needs at least 8 bytes", "a short password refused on its field");
  await page.fill("#user-name", "admin");
  await page.fill("#user-password", "alice-password-1");
  await page.fill("#user-repeated", "alice-password-1");
  await page.click("form[aria-label='add user'] button:text('Add user')");
  const taken = await text(page, "[data-field=name] .field-error");
  check(taken === 'user "admin" exists', `the server's refusal of a taken name on the name field: ${taken}`);
  check(await page.inputValue("#user-password") === "", "the password is emptied after each attempt");
  await page.fill("#user-name", "alice");
  await page.fill("#user-password", "alice-password-1");
  await page.fill("#user-repeated", "alice-password-2");
  await page.click("form[aria-label='add user'] button:text('Add user')");
  check((await text(page, "[data-field=repeated] .field-error")) === "the two passwords differ", "two different passwords refused");
  await page.fill("#user-password", "alice-password-1");
  await page.fill("#user-repeated", "alice-password-1");
  await page.click("form[aria-label='add user'] button:text('Add user')");
  await page.waitForURL(/\/console\/access\/alice$/);
  await page.locator("[data-testid=user-detail][data-user=alice]").waitFor();
  // A grant: read and list on "shared".
  await page.fill("input[aria-label='grant bucket']", "shared");
  await page.check("input[name=perm-read]");
  await page.check("input[name=perm-list]");
  await page.click("form[aria-label='grants of alice'] button:text('Grant')");
  await page.locator("[data-testid=user-detail] [data-testid=grants] tr[data-bucket=shared]", { hasText: "read, list" }).waitFor();
  const users = await (await rest("GET", "/v1/users", undefined, adminToken)).json();
  const alice = users.find((u) => u.name === "alice");
  check(alice && !alice.admin && JSON.stringify(alice.grants) === '[{"bucket":"shared","permissions":["read","list"]}]',
    `alice on the cluster: ${JSON.stringify(alice)}`);
  step("admin added alice (a short password, a taken name and two different passwords refused on their fields) with read, list on shared");

  // Alice signs in in a second browser context.
  const user = await newPage();
  await user.goto(`${base}/console/access`);
  await user.fill("input[autocomplete=username]", "alice");
  await user.fill("input[autocomplete=current-password]", "alice-password-1");
  await user.click("button:text('Sign in')");
  const reason = await text(user, "[data-testid=access-reason]");
  check(reason.startsWith("Only an admin manages users and grants; you are signed in as alice."), `what alice is told: ${reason}`);
  check((await text(user, "[data-testid=grants] tr[data-bucket=shared]")).includes("read, list"), "alice sees her grant");
  // Allowed: read an object of "shared" (preview through /s3/ with her token).
  await user.goto(`${base}/console/buckets/shared?object=notes.txt`);
  check((await text(user, "[data-testid=preview-text]")).startsWith("shared notes"), "alice reads shared/notes.txt");
  // Denied: the ETL page (admins only) shows the server's message.
  const aliceToken = await user.evaluate(() => JSON.parse(sessionStorage.getItem("tessera.token")).tokens.token);
  const denied = await fetch(`${base}/v1/etl`, { headers: { Authorization: `Bearer ${aliceToken}` } });
  check(denied.status === 403, `GET /v1/etl as alice: ${denied.status}`);
  const deniedMessage = (await denied.json()).message;
  await user.goto(`${base}/console/etl`);
  check((await text(user, "[data-testid=etl-error]")) === deniedMessage, `the ETL page shows the server's refusal: ${deniedMessage}`);
  check((await text(user, "[role=alert]:has([data-testid=etl-error])")).startsWith("Only an admin works with ETL; you are signed in as alice."),
    "the ETL page says it is for admins");
  check(await user.locator("form[aria-label='ETL spec form'], form[aria-label='run on bucket']").count() === 0, "no ETL forms for alice");
  step(`alice (second context): reads shared/notes.txt; the ETL page shows "${deniedMessage}"`);

  // Alice makes an S3 key on her page; boto3 reads with it, until she deletes it.
  await user.goto(`${base}/console/access`);
  await user.fill("input[aria-label='key description']", "e2e boto3");
  await user.click("form[aria-label='new S3 key'] button:text('Create key')");
  const keyId = await text(user, "[data-testid=s3-key-id]");
  const secret = await text(user, "[data-testid=s3-key-secret]");
  check(/^TK[A-Z2-7]{18}$/.test(keyId) && /^[A-Za-z0-9]{40}$/.test(secret), `a key id and a secret: ${keyId}`);
  await user.locator(`[data-testid=s3-keys] tr[data-key=${keyId}]`, { hasText: "e2e boto3" }).waitFor();
  const viaS3 = await s3Get(keyId, secret, "shared", "notes.txt");
  check(viaS3 === notes, `boto3 with the page's key reads the object: ${viaS3}`);
  await shot(user, "access-user");
  await user.click("[data-testid=s3-key-created] button:text('Done')");
  check(await user.locator("[data-testid=s3-key-secret]").count() === 0, "the secret is gone once dismissed");
  await user.click(`[data-testid=s3-keys] tr[data-key=${keyId}] button:text('Delete…')`);
  check((await text(user, "[data-testid=s3-keys] [role=alertdialog]")).includes(`Delete ${keyId}?`), "the confirmation names the key");
  await user.click("[data-testid=s3-keys] [role=alertdialog] button:text('Delete key')");
  await user.locator("[data-testid=s3-keys] >> text=no key").waitFor();
  const afterDelete = await s3Get(keyId, secret, "shared", "notes.txt");
  check(afterDelete === "ERROR InvalidAccessKeyId", `boto3 with the deleted key: ${afterDelete}`);
  step(`S3 key ${keyId} made on the page: boto3 read with it, refused (InvalidAccessKeyId) once deleted`);

  // A key the admin makes for alice, kept for the screenshots.
  await page.goto(`${base}/console/access/alice`);
  await page.fill("input[aria-label='key description']", "training jobs");
  await page.click("form[aria-label='new S3 key'] button:text('Create key')");
  // The key's row is the outcome (the card with the secret, shown once, is
  // checked with alice's own key above): an error on the page fails with its
  // text, and a card still shown is dismissed.
  const trainingRow = page.locator("[data-testid=s3-keys] tr", { hasText: "training jobs" });
  const keysError = page.locator("[data-testid=s3-keys-error]");
  await Promise.race([trainingRow.waitFor(), keysError.waitFor()]);
  check(await keysError.count() === 0, `the admin makes a key for alice: ${await keysError.count() ? await keysError.textContent() : ""}`);
  if (await page.locator("[data-testid=s3-key-created]").count()) {
    await page.click("[data-testid=s3-key-created] button:text('Done')");
  }
  // Choosing a grant fills the form; Revoke takes the checked permissions away.
  await page.click("[data-testid=user-detail] [data-testid=grants] tr[data-bucket=shared] button");
  check(await page.inputValue("input[aria-label='grant bucket']") === "shared" && await page.isChecked("input[name=perm-list]") &&
    !(await page.isChecked("input[name=perm-write]")), "a grant's row fills the grant form");
  await page.uncheck("input[name=perm-read]");
  await page.click("form[aria-label='grants of alice'] button:text('Revoke')");
  await page.locator("[data-testid=user-detail] [data-testid=grants] tr[data-bucket=shared] td:nth-child(2)", { hasText: /^read$/ }).waitFor();
  const revoked = (await (await rest("GET", "/v1/users", undefined, adminToken)).json()).find((u) => u.name === "alice");
  check(JSON.stringify(revoked.grants) === '[{"bucket":"shared","permissions":["read"]}]', `list revoked: ${JSON.stringify(revoked.grants)}`);
  await page.click("[data-testid=user-detail] [data-testid=grants] tr[data-bucket=shared] button");
  await shot(page, "access");
  const adminSession = await page.evaluate(() => sessionStorage.getItem("tessera.token"));
  await otherLooks("access", `${base}/console/access/alice`, ["[data-testid=users] tr[data-user=alice]", "[data-testid=s3-keys] tr[data-key]"], JSON.parse(adminSession));

  // The admin deletes alice (the confirmation names her; Keep first).
  await page.click("[data-testid=user-detail] button:text('Delete user…')");
  const ask = await text(page, "[data-testid=user-detail] [role=alertdialog]");
  check(ask.includes("Delete the user “alice”?"), `the confirmation names the user: ${ask}`);
  await page.click("[data-testid=user-detail] [role=alertdialog] button:text('Keep')");
  check((await (await rest("GET", "/v1/users", undefined, adminToken)).json()).some((u) => u.name === "alice"), "Keep deletes nothing");
  await page.click("[data-testid=user-detail] button:text('Delete user…')");
  await page.click("[data-testid=user-detail] [role=alertdialog] button:text('Delete alice')");
  await page.waitForURL(/\/console\/access$/);
  await page.locator("[data-testid=users] tr[data-user=admin]").waitFor();
  await page.locator("[data-testid=users] tr[data-user=alice]").waitFor({ state: "detached" });
  check(!(await (await rest("GET", "/v1/users", undefined, adminToken)).json()).some((u) => u.name === "alice"), "alice is gone from the cluster");
  // Her session stops working: the next thing she does ends it.
  await user.goto(`${base}/console/buckets/shared?object=notes.txt`);
  await user.locator("form[aria-label='sign in'] >> text=Your session expired").waitFor();
  const who = await fetch(`${base}/v1/whoami`, { headers: { Authorization: `Bearer ${aliceToken}` } });
  check(who.status === 401, `alice's access token after her removal: ${who.status}`);
  step("admin deleted alice; her session ended (sign-in form, whoami 401)");

  // Sign out from the Access page revokes both of the admin's tokens.
  const tokens = JSON.parse(adminSession).tokens;
  await page.click("[data-testid=session] button:text('Sign out')");
  await page.locator("form[aria-label='sign in']").waitFor();
  // The form shows at once; the two revocations follow (each answers once
  // every target took it): poll, with a deadline.
  let whoAfter;
  for (const deadline = Date.now() + 10000; Date.now() < deadline;) {
    whoAfter = await fetch(`${base}/v1/whoami`, { headers: { Authorization: `Bearer ${tokens.token}` } });
    if (whoAfter.status === 401) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const refreshAfter = await fetch(`${base}/v1/tokens/refresh`, { method: "POST", body: JSON.stringify({ refresh_token: tokens.refresh_token }) });
  check(whoAfter.status === 401 && refreshAfter.status === 401, `after sign out: whoami ${whoAfter.status}, refresh ${refreshAfter.status}`);
  step("sign out revoked the access and the refresh token");

  check(problems.length === 0, `no console errors or CSP violations: ${problems.join(" | ")}`);
  console.log(`ok web console access (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

try {
  mkdirSync(shots, { recursive: true });
  await (part === "etl" ? etlPart() : part === "access" ? accessPart() : Promise.reject(new Error(`unknown part ${part}`)));
} finally {
  await browser.close();
}

// The web console on a bucket of a million names (tests/e2e/web_million.sh
// fills it and runs this): headless Chromium through playwright-core, as a
// user would, with the numbers printed. Every wait has a deadline; any
// check that fails throws.
// Usage: node web_million.mjs --url URL --modules DIR --chromium PATH --bucket B --names N
//          [--window ROWS] [--no-compare]
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { join } from "node:path";

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  if (i < 0 || i + 1 >= process.argv.length) {
    if (dflt !== undefined) return dflt;
    throw new Error(`missing ${name}`);
  }
  return process.argv[i + 1];
};
const base = arg("--url");
const bucket = arg("--bucket");
const names = Number(arg("--names"));
const windowRows = arg("--window", "");
const compare = !process.argv.includes("--no-compare");
const { chromium } = createRequire(join(arg("--modules"), "noop.js"))("playwright-core");
const kPage = 1000;
const kWalkTimeout = 30 * 60 * 1000;
function check(cond, what) {
  if (!cond) throw new Error(`check failed: ${what}`);
}
const load = () => loadavg().map((l) => l.toFixed(1)).join(" ");
const mib = (b) => `${(b / 1048576).toFixed(1)} MiB`;
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const objName = (i) => `obj-${String(i).padStart(8, "0")}`;

const browser = await chromium.launch({ executablePath: arg("--chromium"), headless: true,
  args: ["--no-sandbox", "--disable-dev-shm-usage"] });

// One walk: the first page, End to "listing complete", back to the middle,
// and a prefix search; `win` is the list_window URL parameter ("" = default).
async function walk(win) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await ctx.newPage();
  page.setDefaultTimeout(60000);
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  // Each change of the listing's fetch count, with the time, the rows in
  // the DOM and the rows held, recorded in the page.
  await page.addInitScript(() => {
    window.__pages = [];
    new MutationObserver((list) => {
      for (const m of list) {
        if (m.attributeName !== "data-fetches") continue;
        const el = m.target;
        window.__pages.push({ t: performance.now(), fetches: Number(el.getAttribute("data-fetches")),
          dom: document.querySelectorAll(".obj-row").length, held: Number(el.getAttribute("data-held")) });
      }
    }).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-fetches"] });
  });
  const cdp = await ctx.newCDPSession(page);
  const heap = async () => {
    await cdp.send("HeapProfiler.collectGarbage");
    return (await cdp.send("Runtime.getHeapUsage")).usedSize;
  };
  const state = page.locator("[data-testid=listing-state]");
  const attr = async (n) => Number(await state.getAttribute(`data-${n}`));
  const q = win ? `?list_window=${win}` : "";
  const t0 = Date.now();
  await page.goto(`${base}/console/buckets/${bucket}${q}`);
  await state.filter({ hasText: `${kPage} objects` }).waitFor();
  const firstPage = Date.now() - t0;
  await page.locator(`.obj-row[data-name='${objName(0)}']`).waitFor();
  const heapFirst = await heap();

  await page.locator("[data-testid=object-rows]").focus();
  const t1 = Date.now();
  await page.keyboard.press("End");
  await page.locator("[data-testid=listing-state][data-complete=true]").waitFor({ timeout: kWalkTimeout });
  const toEnd = Date.now() - t1;
  const text = await state.innerText();
  check(text.startsWith(`${names} objects`) && text.includes("listing complete"), `the total at the end: ${text}`);
  await page.locator(`.obj-row[data-name='${objName(names - 1)}']`).waitFor();
  const pages = await page.evaluate(() => window.__pages);
  // Between successive pages, from the second (the first gap holds the GC above and the key press).
  const gaps = pages.slice(1).map((p, i) => p.t - pages[i].t).slice(1);
  const maxDom = Math.max(...pages.map((p) => p.dom));
  const maxHeld = Math.max(...pages.map((p) => p.held));
  const heapEnd = await heap();
  const fetches = await attr("fetches");
  const dropped = await attr("dropped");

  // Back to the middle by the scroll bar (the box may be scaled: the row is found by its index).
  const mid = Math.floor(names / 2);
  console.log(`  (${win || "default"}: End to the end in ${(toEnd / 1000).toFixed(1)} s, ${fetches} pages)`);
  const t2 = Date.now();
  await page.locator("[data-testid=object-rows]").evaluate((el, f) => (el.scrollTop = f * (el.scrollHeight - el.clientHeight)), mid / names);
  // The rows there drawn from their pages (fetched again if dropped), none still pending.
  await page.waitForFunction((m) => {
    const rows = [...document.querySelectorAll(".obj-row")];
    return rows.length > 10 && rows.every((r) => !r.classList.contains("pending")) &&
      rows.some((r) => Math.abs(Number(r.getAttribute("data-row")) - m) < 100);
  }, mid);
  const shown = await page.locator(".obj-row:not(.pending)").evaluateAll((rows) =>
    rows.map((r) => [Number(r.getAttribute("data-row")), r.getAttribute("data-name")]));
  const backMs = Date.now() - t2;
  check(shown.length > 10 && shown.every(([i, n]) => n === `obj-${String(i).padStart(8, "0")}`),
    `the rows in the middle are the right names: ${JSON.stringify(shown.slice(0, 3))}`);
  const heapBack = await heap();
  const refetches = await attr("refetches");

  // A prefix search on the server: obj-000123 names 100 objects.
  const t3 = Date.now();
  await page.fill("input[type=search]", "obj-000123");
  await page.click("button:text('Search')");
  await page.locator("[data-testid=listing-state][data-complete=true]").filter({ hasText: "100 objects" }).waitFor();
  const searchMs = Date.now() - t3;
  check(errors.length === 0, `no page errors: ${errors.join(" | ")}`);
  await ctx.close();
  return { firstPage, toEnd, pages: pages.length, fetches, gaps, maxDom, maxHeld, dropped, heapFirst, heapEnd, heapBack,
    backMs, refetches, searchMs, mid: shown[0] };
}

const report = (label, r) => {
  console.log(`${label}:`);
  console.log(`  first page shown ${r.firstPage} ms after the navigation`);
  console.log(`  End to "listing complete": ${(r.toEnd / 1000).toFixed(1)} s, ${r.fetches} pages of ${kPage}; per page ` +
    `median ${pct(r.gaps, 50).toFixed(0)} ms, p99 ${pct(r.gaps, 99).toFixed(0)} ms, max ${Math.max(...r.gaps).toFixed(0)} ms`);
  console.log(`  rows in the DOM at most ${r.maxDom}; rows held at most ${r.maxHeld}; ${r.dropped} pages dropped`);
  console.log(`  JS heap after GC: ${mib(r.heapFirst)} at the first page, ${mib(r.heapEnd)} at the end, ` +
    `${mib(r.heapBack)} after scrolling back to the middle (${r.refetches} pages fetched again in ${r.backMs} ms)`);
  console.log(`  prefix search obj-000123: 100 objects, listing complete in ${r.searchMs} ms`);
};

try {
  console.log(`load at the start of the browser part: ${load()}`);
  const w = await walk(windowRows);
  report(`window ${windowRows || "default (50,000)"}`, w);
  check(w.maxDom < 100, `DOM rows bounded: ${w.maxDom}`);
  if (compare) {
    const f = await walk("1000000");
    report("whole listing held (window 1,000,000)", f);
    check(w.heapEnd < f.heapEnd, "the window keeps the heap below the whole listing's");
  }
  console.log(`load at the end: ${load()}`);
  console.log("ok web million");
} finally {
  await browser.close();
}

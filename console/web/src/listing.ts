// One bucket listing (a folder, or a prefix search) as the Buckets page
// shows it: pages fetched by continuation token, their names folded into
// rows (objects, and a row per virtual folder), held in a bounded window.
//
// Every page ever fetched keeps its small metadata (the token that fetches
// it, its first row, its row and name counts, the folder its first name
// continues, the next page's token), so the total shown and "listing
// complete" stay right; only the rows of pages near the view are held. Once
// more than `window` rows are held, the pages farthest from the view are
// dropped, and fetched again by their token when the view comes back to
// them. A page fetched again that no longer matches (the bucket changed:
// other names, or another next token) replaces what follows it: the
// listing continues from there.
//
// No DOM here: the page calls want() with the rows in view and renders
// rowAt(); fetching is injected (unit-tested with a fake bucket).
import { ListPage } from "./decode";

export interface Row {
  kind: "folder" | "object";
  name: string;  // full name (a folder's ends with '/')
  size: number;
}

interface Page {
  token: string;        // fetches this page ("" for the first)
  next: string;         // the next page's token ("" after the last page)
  rowStart: number;
  rowCount: number;
  names: number;
  folderBefore: string; // the folder the previous page's last name was in
  folderAfter: string;  // the folder its own last name is in
  rows: Row[] | null;   // null: dropped (or never held)
}

export type FetchPage = (token: string, signal: AbortSignal) => Promise<ListPage>;

export interface ListingStats {
  rows: number;        // rows known (the scroll height)
  names: number;       // names listed (the total shown)
  held: number;        // rows held in memory now
  fetches: number;     // pages fetched, first time or again
  refetches: number;   // pages fetched again after being dropped
  dropped: number;     // pages dropped to keep the window
}

// Folds a page's names into rows below `folder` (the open folder): a name
// with a '/' after it becomes its folder's row, once for a run of names in
// the same folder, also across pages (`before`: the folder the run started
// on the previous page). Returns the rows and the folder the page ends in.
export function foldRows(folder: string, page: ListPage, before: string): { rows: Row[]; last: string } {
  const rows: Row[] = [];
  let last = before;
  for (const e of page.entries) {
    const rest = e.name.slice(folder.length);
    const slash = rest.indexOf("/");
    if (slash >= 0) {
      const f = folder + rest.slice(0, slash + 1);
      if (f !== last) rows.push({ kind: "folder", name: f, size: 0 });
      last = f;
    } else {
      rows.push({ kind: "object", name: e.name, size: e.size });
    }
  }
  return { rows, last };
}

// How far a page's rows are from the rows [first, last): 0 when they overlap.
function distance(page: Page, first: number, last: number): number {
  const end = page.rowStart + page.rowCount;
  if (page.rowStart < last && end > first) return 0;
  return page.rowStart >= last ? page.rowStart - last + 1 : first - end + 1;
}

export class Listing {
  private pages: Page[] = [];
  private ctl: AbortController | null = null;
  private closed = false;
  private inFlight = -1;  // the page index being fetched (pages.length: the next new one)
  private view = { first: 0, last: 0 };  // the rows in view, as last told
  private toEnd = false;  // paging on to the end (End), as last told
  error = "";
  changed = false;        // a page fetched again differed: the rest was read again
  stats: ListingStats = { rows: 0, names: 0, held: 0, fetches: 0, refetches: 0, dropped: 0 };

  constructor(private folder: string, private fetchPage: FetchPage, private window: number,
    private onChange: () => void) {}

  get complete(): boolean {
    const last = this.pages.at(-1);
    return last !== undefined && last.next === "";
  }
  get loading(): boolean {
    return this.inFlight >= 0;
  }

  close(): void {
    this.closed = true;
    this.ctl?.abort();
  }

  // The row at `i`; null while its page is not held (being fetched again).
  rowAt(i: number): Row | null {
    const p = this.pageOf(i);
    if (p < 0) return null;
    const page = this.pages[p];
    return page.rows ? page.rows[i - page.rowStart] ?? null : null;
  }

  // The rows [first, last) are in view (`margin` rows either side are
  // wanted soon). Fetches what they need, one page at a time: a dropped page
  // in or near the view first, then the next new page when the view is
  // within `margin` rows of the end of the listing (or `toEnd`: the user
  // asked for the end).
  want(first: number, last: number, margin: number, toEnd: boolean): void {
    this.view = { first, last };
    this.toEnd = toEnd;
    if (this.closed || this.inFlight >= 0 || this.error) return;
    const lo = Math.max(0, first - margin);
    const hi = last + margin;
    // Missing pages overlapping [lo, hi), the one nearest the view first.
    let best = -1;
    let bestDist = Infinity;
    for (let p = this.pageOf(lo); p >= 0 && p < this.pages.length; p++) {
      const page = this.pages[p];
      if (page.rowStart >= hi) break;
      if (page.rows || page.rowCount === 0) continue;
      const dist = distance(page, first, last);
      if (dist < bestDist) {
        best = p;
        bestDist = dist;
      }
    }
    // Paging on to the end, the view lags behind the pages coming in: what
    // it passes on the way is not fetched again.
    if (best >= 0 && !toEnd) {
      void this.load(best);
      return;
    }
    if (this.pages.length === 0 || (!this.complete && (toEnd || hi >= this.stats.rows))) {
      void this.load(this.pages.length);
    }
  }

  // Fetches page `p` (pages.length: the next new one).
  private async load(p: number): Promise<void> {
    const isNew = p === this.pages.length;
    const token = isNew ? this.pages.at(-1)?.next ?? "" : this.pages[p].token;
    this.inFlight = p;
    this.ctl = new AbortController();
    const signal = this.ctl.signal;
    this.onChange();
    let page: ListPage;
    try {
      page = await this.fetchPage(token, signal);
    } catch (e) {
      this.inFlight = -1;
      if (!signal.aborted && !this.closed) {
        this.error = (e as Error).message;
        this.onChange();
      }
      return;
    }
    this.inFlight = -1;
    if (this.closed) return;
    this.stats.fetches++;
    const before = p === 0 ? "" : isNew ? this.pages[p - 1].folderAfter : this.pages[p].folderBefore;
    const { rows, last: after } = foldRows(this.folder, page, before);
    if (isNew) {
      const start = this.stats.rows;
      this.pages.push({ token, next: page.token, rowStart: start, rowCount: rows.length, names: page.entries.length,
        folderBefore: before, folderAfter: after, rows });
    } else {
      this.stats.refetches++;
      const old = this.pages[p];
      const same = old.next === page.token && old.rowCount === rows.length && old.names === page.entries.length &&
        old.folderAfter === after;
      if (same) {
        old.rows = rows;
      } else {
        // The bucket changed under the listing: this page as it is now, and
        // the pages after it listed again from its next token.
        this.changed = true;
        this.pages.length = p;
        this.pages.push({ token, next: page.token, rowStart: old.rowStart, rowCount: rows.length,
          names: page.entries.length, folderBefore: before, folderAfter: after, rows });
      }
    }
    this.recount();
    // Around the view as it is now (it moved while the page was fetched);
    // paging on to the end, around the new page: the view is on its way
    // there, and when pages come faster than it follows (End) it may still
    // be a page or more behind, which would drop the page just fetched.
    const last = this.pages[this.pages.length - 1];
    if (isNew && this.toEnd) this.trim(last.rowStart, last.rowStart + last.rowCount);
    else this.trim(this.view.first, this.view.last);
    this.onChange();
  }

  private recount(): void {
    let rows = 0;
    let names = 0;
    let held = 0;
    for (const page of this.pages) {
      page.rowStart = rows;
      rows += page.rowCount;
      names += page.names;
      if (page.rows) held += page.rowCount;
    }
    this.stats.rows = rows;
    this.stats.names = names;
    this.stats.held = held;
  }

  // Drops the held pages farthest from the view [first, last) until at most
  // `window` rows are held. Never dropped: a page overlapping the view or
  // a quarter of the window either side of it, so at most `window` plus two
  // pages' rows are held (the kept span can cut two pages).
  private trim(first: number, last: number): void {
    const keep = Math.floor(this.window / 4);
    const lo = first - keep;
    const hi = last + keep;
    while (this.stats.held > this.window) {
      let far = -1;
      let farDist = -1;
      for (let p = 0; p < this.pages.length; p++) {
        const page = this.pages[p];
        if (!page.rows || page.rowCount === 0) continue;
        if (page.rowStart + page.rowCount > lo && page.rowStart < hi) continue;
        const dist = distance(page, first, last);
        if (dist > farDist) {
          far = p;
          farDist = dist;
        }
      }
      if (far < 0) return;
      this.stats.held -= this.pages[far].rowCount;
      this.pages[far].rows = null;
      this.stats.dropped++;
    }
  }

  // The page holding row i (binary search on rowStart), -1 when past the end.
  private pageOf(i: number): number {
    if (i < 0 || i >= this.stats.rows) return -1;
    let lo = 0;
    let hi = this.pages.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.pages[mid].rowStart <= i) lo = mid;
      else hi = mid - 1;
    }
    // Pages without rows share their rowStart with the next one: the last
    // page starting at or before i is the one holding it.
    return lo;
  }
}

// Limits a tab keeps for its life, each with a default and bounds, and a
// URL parameter on any console URL that sets it for the tab (kept in
// sessionStorage, so it survives navigation and a reload, and goes with
// the tab):
//   ?list_window=N      names of one bucket listing held in the tab
//                       (default 50,000; 2,000 to 1,000,000)
//   ?download_cap=BYTES the most a signed-in download holds in memory
//                       (default 256 MiB; 1 KiB up to the default: it can
//                       only be lowered)
// A value out of bounds or not a whole number is ignored (the default or
// the tab's earlier value stays).

interface Limit {
  param: string;
  def: number;
  min: number;
  max: number;
}

export const kListWindow: Limit = { param: "list_window", def: 50_000, min: 2_000, max: 1_000_000 };
export const kDownloadCap: Limit = { param: "download_cap", def: 256 << 20, min: 1 << 10, max: 256 << 20 };

const key = (l: Limit) => `tessera.${l.param}`;

function valid(l: Limit, text: string | null): number | null {
  if (text === null || !/^\d+$/.test(text)) return null;
  const n = Number(text);
  return n >= l.min && n <= l.max ? n : null;
}

// Takes the URL's parameters into the tab's settings (called once at start).
export function readUrlSettings(search: string): void {
  const q = new URLSearchParams(search);
  for (const l of [kListWindow, kDownloadCap]) {
    const n = valid(l, q.get(l.param));
    if (n !== null) {
      try {
        sessionStorage.setItem(key(l), String(n));
      } catch {
        /* storage refused: the default stays */
      }
    }
  }
}

// The tab's value of `l`.
export function setting(l: Limit): number {
  let stored: string | null = null;
  try {
    stored = sessionStorage.getItem(key(l));
  } catch {
    /* no storage: the default */
  }
  return valid(l, stored) ?? l.def;
}

// The console's URLs: every page, bucket, prefix, object and job has one
// under /console/ (the proxy answers index.html for all of them), kept in
// the address bar with the History API.
//   /console/                      dashboard
//   /console/nodes[/<id>]          nodes, one selected
//   /console/jobs[/<id>]           jobs, one selected
//   /console/buckets[/<bucket>]?prefix=P&object=O&q=SEARCH
//   /console/sort, /console/ishard composers
//   /console/etl[/<name>]          ETL, one transformer selected
//   /console/access[/<user>]       users and grants, one user selected
import { useEffect, useState } from "preact/hooks";

export const kBase = "/console/";

export interface Route {
  page: string;
  id: string;  // node, job or bucket
  params: URLSearchParams;
}

export function parse(loc: Location | URL): Route {
  let rest = loc.pathname.startsWith(kBase) ? loc.pathname.slice(kBase.length) : "";
  rest = rest.replace(/\/+$/, "");
  const slash = rest.indexOf("/");
  const page = (slash < 0 ? rest : rest.slice(0, slash)) || "dashboard";
  let id = slash < 0 ? "" : rest.slice(slash + 1);
  try {
    id = decodeURIComponent(id);
  } catch {
    id = "";
  }
  return { page, id, params: new URLSearchParams(loc.search) };
}

export function href(page: string, id = "", params: Record<string, string> = {}): string {
  let p = page === "dashboard" ? kBase : kBase + page;
  if (id) p += "/" + encodeURIComponent(id);
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) q.set(k, v);
  const qs = q.toString();
  return qs ? `${p}?${qs}` : p;
}

const listeners = new Set<() => void>();
window.addEventListener("popstate", () => listeners.forEach((l) => l()));

export function navigate(url: string, replace = false): void {
  if (url === location.pathname + location.search) return;
  if (replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
  listeners.forEach((l) => l());
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parse(location));
  useEffect(() => {
    const l = () => setRoute(parse(location));
    listeners.add(l);
    return () => void listeners.delete(l);
  }, []);
  return route;
}

// A click on an <a href> inside the console navigates without a reload
// (a modified click still opens a new tab).
export function onLinkClick(e: MouseEvent): void {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const a = (e.target as Element | null)?.closest?.("a");
  if (!a || a.target || a.hasAttribute("download")) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || !url.pathname.startsWith(kBase)) return;
  e.preventDefault();
  navigate(url.pathname + url.search);
}

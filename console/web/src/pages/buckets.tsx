// Buckets: the list (create; destroy after typing the bucket's name), the
// selected bucket's objects listed lazily by continuation token (pages of
// kPageSize, the next one fetched as the list scrolls near its end, End
// pages on to the end; the rows held in a bounded window, listing.ts; only
// the rows in view are in the DOM), a prefix search on the server, virtual
// folders from '/' in names, "listing complete / incomplete" always shown,
// a drop zone for uploads, the preview of the selected object, and the
// bucket's properties (?props=1).
import { useEffect, useRef, useState } from "preact/hooks";
import * as api from "../api";
import * as fmt from "../format";
import { BucketInfo } from "../decode";
import { State } from "../feed";
import { href, navigate, Route } from "../route";
import { Listing } from "../listing";
import { kListWindow, setting } from "../settings";
import { droppedFiles, uploads } from "../uploads";
import { BucketProps } from "./bucket_props";
import { isShard, Preview } from "./preview";
import { UploadPanel } from "./upload_panel";

export const kPageSize = 1000;
const kRowHeight = 28;

function BucketList({ s, selected }: { s: State; selected: string }) {
  const [names, setNames] = useState<string[]>([]);
  const [error, setError] = useState("");
  const [newName, setNewName] = useState("");
  const [destroying, setDestroying] = useState("");
  const [typed, setTyped] = useState("");
  const reload = () => api.listBuckets().then(setNames).then(() => setError("")).catch((e) => setError((e as Error).message));
  useEffect(() => void reload(), [s.bmdVersion]);
  const create = async (e: Event) => {
    e.preventDefault();
    try {
      await api.createBucket(newName.trim());
      setNewName("");
      await reload();
      navigate(href("buckets", newName.trim()));
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const destroy = async () => {
    try {
      await api.destroyBucket(destroying);
      if (selected === destroying) navigate(href("buckets"));
      setDestroying("");
      setTyped("");
      await reload();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <aside class="bucket-list" aria-label="buckets">
      <form onSubmit={create} class="row">
        <input aria-label="new bucket name" placeholder="new bucket" value={newName} onInput={(e) => setNewName((e.target as HTMLInputElement).value)} required pattern="[A-Za-z0-9_.\-]+" />
        <button type="submit">Create</button>
      </form>
      {error && <p class="error" role="alert">{error}</p>}
      <ul data-testid="bucket-list">
        {names.map((n) => {
          return (
            <li key={n} class={n === selected ? "selected" : ""}>
              <a href={href("buckets", n)} data-bucket={n}>{n}</a>
              <button class="icon danger" aria-label={`destroy bucket ${n}`} title={`destroy bucket ${n}`} onClick={() => { setDestroying(n); setTyped(""); }}>✕</button>
            </li>
          );
        })}
        {names.length === 0 && !error && <li class="dim">no buckets</li>}
      </ul>
      {destroying && (
        <div class="dialog" role="alertdialog" aria-labelledby="destroy-title" data-testid="destroy-dialog"
          onKeyDown={(e) => e.key === "Escape" && setDestroying("")}>
          <h3 id="destroy-title">Destroy bucket “{destroying}”?</h3>
          <p>Every object in <b>{destroying}</b> is deleted. Type the bucket's name to confirm.</p>
          <input aria-label="bucket name to confirm" value={typed} onInput={(e) => setTyped((e.target as HTMLInputElement).value)} autoFocus />
          <div class="row">
            <button class="danger" disabled={typed !== destroying} onClick={destroy}>Destroy {destroying}</button>
            <button onClick={() => setDestroying("")}>Cancel</button>
          </div>
        </div>
      )}
    </aside>
  );
}

// The object list's geometry: rows of kRowHeight px, drawn only in view.
// A listing taller than kMaxScrollPx (357,142 rows) scrolls a box of that
// height, each scrolled pixel moving the rows proportionally more (browsers
// cap an element's height near 33 million px).
const kMaxScrollPx = 10_000_000;

function ObjectList({ bucket, route, usage, bmdVersion }: { bucket: string; route: Route; usage?: BucketInfo; bmdVersion: number }) {
  const prefix = route.params.get("prefix") ?? "";
  const showProps = route.params.get("props") === "1";
  const search = route.params.get("q") ?? "";
  const selected = route.params.get("object") ?? "";
  // The listing with the bucket, prefix and reload it was made for: right
  // after the route changes, the render before the effect below must not
  // show the old listing's count and state under the new search.
  const [made, setMade] = useState<{ key: string; listing: Listing } | null>(null);
  const [, setVersion] = useState(0);
  const [query, setQuery] = useState(search);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewH, setViewH] = useState(600);
  const [dragOver, setDragOver] = useState(false);
  const [reloadKey, setReloadKey] = useState(0);
  // End pressed in the list: page on to the end of the listing, the view kept at the bottom.
  const [toEnd, setToEnd] = useState(false);
  const box = useRef<HTMLDivElement>(null);

  const listPrefix = prefix + search;
  const listingKey = `${bucket}\n${listPrefix}\n${reloadKey}`;
  const listing = made && made.key === listingKey ? made.listing : null;
  useEffect(() => {
    const l = new Listing(prefix, (token, signal) =>
      api.listObjects(bucket, { prefix: listPrefix, token, pageSize: kPageSize }, signal), setting(kListWindow),
    () => setVersion((v) => v + 1));
    setMade({ key: listingKey, listing: l });
    setQuery(search);
    setToEnd(false);
    setScrollTop(0);
    if (box.current) box.current.scrollTop = 0;
    return () => l.close();
  }, [bucket, listPrefix, reloadKey]);

  // The listing again once the uploads into this bucket are all over.
  useEffect(() => {
    uploads.onUploaded = (b) => {
      if (b === bucket && !uploads.items.some((u) => u.bucket === b && (u.state === "queued" || u.state === "sending"))) {
        setReloadKey((k) => k + 1);
      }
    };
    return () => void (uploads.onUploaded = () => undefined);
  }, [bucket]);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setViewH(el.clientHeight));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  const st = listing?.stats;
  const total = st?.rows ?? 0;
  const complete = listing?.complete ?? false;
  const loading = listing?.loading ?? true;
  const error = listing?.error ?? "";
  const realH = total * kRowHeight;
  const boxH = Math.min(realH, kMaxScrollPx);
  // Scrolled pixels to content pixels (1 below kMaxScrollPx).
  const scale = boxH > viewH ? (realH - viewH) / (boxH - viewH) : 1;
  const contentTop = scrollTop * scale;
  const first = Math.max(0, Math.floor(contentTop / kRowHeight) - 10);
  const last = Math.min(total, Math.ceil((contentTop + viewH) / kRowHeight) + 10);
  const screen = Math.ceil(viewH / kRowHeight);

  // What the view needs: a dropped page in it, or the next page within two screens of the end.
  useEffect(() => {
    listing?.want(first, last, 2 * screen, toEnd);
  }, [listing, first, last, screen, toEnd, total, loading, complete]);
  // Going to the end: the view follows the bottom as pages come in, until
  // the listing is complete and the view has got there (before that the
  // pages it passes on the way are not fetched again).
  useEffect(() => {
    if (!toEnd || !box.current) return;
    box.current.scrollTop = box.current.scrollHeight;
    if ((complete && last >= total) || error) setToEnd(false);
  }, [toEnd, total, complete, error, last]);

  const go = (params: Record<string, string>) =>
    navigate(href("buckets", bucket, { prefix, q: search, object: selected, props: showProps ? "1" : "", ...params }));
  const crumbs = prefix.split("/").filter(Boolean);
  const objects = st?.names ?? 0;
  const drawn: preact.JSX.Element[] = [];
  for (let i = first; i < last; i++) {
    const r = listing?.rowAt(i);
    const top = `${scrollTop + i * kRowHeight - contentTop}px`;
    if (!r) {
      drawn.push(<div key={`pending-${i}`} class="obj-row pending" style={{ top }} aria-hidden="true"><span class="dim">…</span></div>);
      continue;
    }
    const label = r.name.slice(prefix.length);
    drawn.push(r.kind === "folder" ? (
      <a key={r.name} class="obj-row folder" style={{ top }} href={href("buckets", bucket, { prefix: r.name })} data-name={r.name} data-row={i}>
        <span>{label}</span><span class="tag">folder</span>
      </a>
    ) : (
      <a key={r.name} class={`obj-row${r.name === selected ? " selected" : ""}`} style={{ top }} data-name={r.name} data-row={i}
        href={href("buckets", bucket, { prefix, q: search, object: r.name })}>
        <span>{label}{isShard(r.name) && <span class="tag">shard</span>}</span><span class="num">{fmt.bytes(r.size)}</span>
      </a>
    ));
  }
  // End goes to the end of the listing, paging on; Home to its top. Both
  // jump at once (the browser's own End animates towards the end the list
  // had when pressed, which pulls the view back as pages come in). Keys that
  // scroll up stop "going to the end".
  const onKeyDown = (e: KeyboardEvent) => {
    const el = box.current;
    if ((e.key === "End" || e.key === "Home") && el && !e.altKey && !e.ctrlKey && !e.metaKey && !e.shiftKey) {
      e.preventDefault();
      el.scrollTop = e.key === "End" ? el.scrollHeight : 0;
      setToEnd(e.key === "End");
    } else if (["PageUp", "ArrowUp"].includes(e.key)) {
      setToEnd(false);
    }
  };

  const onDrop = async (e: DragEvent) => {
    e.preventDefault();
    setDragOver(false);
    if (!e.dataTransfer) return;
    const files = await droppedFiles(e.dataTransfer);
    uploads.add(bucket, files.map((f) => ({ name: prefix + f.name, file: f.file })));
  };
  const onPick = (e: Event) => {
    const input = e.target as HTMLInputElement;
    const files = Array.from(input.files ?? []).map((f) => ({ name: prefix + (f.webkitRelativePath || f.name), file: f }));
    uploads.add(bucket, files);
    input.value = "";
  };

  return (
    <div class={`objects${selected ? " has-preview" : ""}`}>
      <nav class="crumbs" aria-label="folder">
        <a href={href("buckets", bucket)}>{bucket}</a>
        {crumbs.map((c, i) => (
          <span key={i}> / <a href={href("buckets", bucket, { prefix: crumbs.slice(0, i + 1).join("/") + "/" })}>{c}</a></span>
        ))}
        {usage?.objects != null && usage.scanned_ns > 0 && (
          <small class="dim usage"> · {fmt.count(usage.objects)} objects, {fmt.bytes(usage.bytes ?? 0)} at the targets' last scan ({fmt.clock(usage.scanned_ns / 1e6)})</small>
        )}
      </nav>
      <form class="row" onSubmit={(e) => { e.preventDefault(); go({ q: query, object: "" }); }}>
        <input type="search" aria-label="search names by prefix" placeholder={`names starting with ${prefix}…`} value={query} onInput={(e) => setQuery((e.target as HTMLInputElement).value)} />
        <button type="submit">Search</button>
        <button type="button" onClick={() => setReloadKey((k) => k + 1)}>Reload</button>
        <button type="button" aria-pressed={showProps} onClick={() => go({ props: showProps ? "" : "1" })}>Properties</button>
        <label class="button">Upload files<input type="file" multiple class="hidden-input" onChange={onPick} data-testid="file-input" /></label>
        <label class="button">Upload a folder<input type="file" multiple class="hidden-input" onChange={onPick} data-testid="folder-input" {...{ webkitdirectory: true }} /></label>
      </form>
      {showProps && <BucketProps bucket={bucket} usage={usage} bmdVersion={bmdVersion} onClose={() => go({ props: "" })} />}
      <p class="listing-state" data-testid="listing-state" data-complete={complete ? "true" : "false"}
        data-held={st?.held ?? 0} data-fetches={st?.fetches ?? 0} data-refetches={st?.refetches ?? 0} data-dropped={st?.dropped ?? 0}>
        {objects} {objects === 1 ? "object" : "objects"}{search ? ` starting with “${prefix}${search}”` : ""} · {complete ? "listing complete" : loading ? (toEnd ? "listing incomplete, going to the end…" : "listing incomplete, loading…") : "listing incomplete"}
        {listing?.changed && <span class="warn"> · the bucket changed while listed: read again from there</span>}
        {error && <span class="error" role="alert"> · {error}</span>}
      </p>
      <div
        class={`object-rows${dragOver ? " drag" : ""}`}
        ref={box}
        tabIndex={0}
        data-testid="object-rows"
        onScroll={(e) => setScrollTop((e.target as HTMLElement).scrollTop)}
        onKeyDown={onKeyDown}
        onWheel={(e) => e.deltaY < 0 && setToEnd(false)}
        onMouseDown={() => setToEnd(false)}
        onDragOver={(e) => { e.preventDefault(); setDragOver(true); }}
        onDragLeave={() => setDragOver(false)}
        onDrop={onDrop}
      >
        <div style={{ height: `${boxH}px`, position: "relative" }}>
          {drawn}
        </div>
        {total === 0 && !loading && <p class="dim empty">{complete ? "empty — drop files or folders here to upload" : ""}</p>}
      </div>
      {selected && <Preview key={selected} bucket={bucket} name={selected} onClose={() => go({ object: "" })} />}
    </div>
  );
}

export function Buckets({ s, route }: { s: State; route: Route }) {
  const bucket = route.id;
  return (
    <div class="page buckets">
      <h2>Buckets</h2>
      <div class="buckets-layout">
        <BucketList s={s} selected={bucket} />
        {bucket ? <ObjectList key={bucket} bucket={bucket} route={route} usage={s.buckets.get(bucket)} bmdVersion={s.bmdVersion} /> : <p class="dim">Select or create a bucket.</p>}
      </div>
      <UploadPanel />
    </div>
  );
}


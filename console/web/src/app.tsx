// The console's frame: navigation, the feed's state, the signed-in user,
// and the page of the current URL.
import { useEffect, useState } from "preact/hooks";
import * as api from "./api";
import * as feed from "./feed";
import { href, onLinkClick, useRoute } from "./route";
import { Access } from "./pages/access";
import { Buckets } from "./pages/buckets";
import { Composer } from "./pages/composer";
import { Dashboard } from "./pages/dashboard";
import { Etl } from "./pages/etl";
import { Jobs } from "./pages/jobs";
import { Nodes } from "./pages/nodes";
import { SignIn } from "./pages/signin";

const kPages: [string, string][] = [
  ["dashboard", "Dashboard"],
  ["nodes", "Nodes"],
  ["jobs", "Jobs"],
  ["buckets", "Buckets"],
  ["sort", "dSort"],
  ["ishard", "ishard"],
  ["etl", "ETL"],
  ["access", "Access"],  // with auth on only (with it off the page explains itself)
];

function useFeed(): number {
  const [v, setV] = useState(feed.stateVersion());
  useEffect(() => feed.subscribe(() => setV(feed.stateVersion())), []);
  return v;
}

function FeedStatus({ signedOut }: { signedOut: boolean }) {
  const s = feed.state;
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(t);
  }, []);
  const secs = s.retryAt > now ? Math.ceil((s.retryAt - now) / 1000) : 0;
  if (signedOut) return <span class="feed-status polling" data-testid="feed-status" data-status="signed-out">● not signed in</span>;
  return (
    <button class={`feed-status ${s.status}`} data-testid="feed-status" data-status={s.status} onClick={() => feed.reconnectNow()}
      title="the live feed; click to reconnect now" aria-live="polite">
      ● {s.statusText}{secs ? ` in ${secs} s` : ""}
    </button>
  );
}

export function App() {
  const route = useRoute();
  const v = useFeed();
  const [auth, setAuth] = useState<"unknown" | "open" | "required">("unknown");
  const [, setSessionTick] = useState(0);
  useEffect(() => api.onSessionChange(() => setSessionTick((t) => t + 1)), []);
  useEffect(() => {
    api.authRequired().then((req) => {
      setAuth(req ? "required" : "open");
      if (!req || api.currentSession()) feed.start();
    }).catch(() => {
      setAuth("open");
      feed.start();
    });
  }, []);
  const session = api.currentSession();
  const needSignIn = auth === "required" && !session;
  const s = feed.state;
  return (
    <div class="app" onClick={onLinkClick}>
      <header class="top">
        <h1><a href={href("dashboard")}>Tessera</a></h1>
        <nav aria-label="pages">
          {kPages.filter(([p]) => p !== "access" || auth === "required").map(([p, label]) => (
            <a key={p} href={href(p)} aria-current={route.page === p ? "page" : undefined}>{label}</a>
          ))}
        </nav>
        <FeedStatus signedOut={needSignIn} />
        {session && (
          <span class="who">signed in as <b>{session.user}</b> <button onClick={() => void api.signOut()}>Sign out</button></span>
        )}
      </header>
      <main>
        {auth === "unknown" ? <p class="dim">connecting…</p>
          : needSignIn ? <SignIn expired={api.sessionExpired()} onDone={() => feed.ensureConnected()} />
          : route.page === "nodes" ? <Nodes s={s} v={v} selected={route.id} />
          : route.page === "jobs" ? <Jobs s={s} selected={route.id} />
          : route.page === "buckets" ? <Buckets s={s} route={route} />
          : route.page === "dashboard" ? <Dashboard s={s} v={v} />
          : route.page === "sort" || route.page === "ishard" ? <Composer key={route.page} kind={route.page} />
          : route.page === "etl" ? <Etl s={s} selected={route.id} />
          : route.page === "access" ? <Access auth={auth} selected={route.id} />
          : <p class="error">No page “{route.page}”. <a href={href("dashboard")}>Dashboard</a></p>}
      </main>
    </div>
  );
}

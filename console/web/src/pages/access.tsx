// The Access page, the web counterpart of the desktop console's (docs/
// security.md): with auth on, an admin sees the cluster's users and their
// grants, adds a user (the server's name and password rules checked on the
// fields first), changes a user's grants, deletes a user after a
// confirmation naming them, and manages S3 access keys; /console/access/<u>
// selects a user. Anyone signed in sees their own grants, their S3 keys and
// their session; a user who is not an admin is told why the rest is not
// there. With auth off the page says there is nothing to manage.
import type { JSX } from "preact";
import { useEffect, useState } from "preact/hooks";
import * as admin from "../admin_api";
import * as api from "../api";
import * as d from "../decode";
import * as fmt from "../format";
import { href, navigate } from "../route";
import { S3Keys } from "./access_keys";

// A token's expiry (unix seconds) as a local time.
function until(secs: number): string {
  if (!secs) return "—";
  const ms = secs * 1000;
  const sameDay = new Date(ms).toDateString() === new Date().toDateString();
  return sameDay ? fmt.clock(ms) : `${new Date(ms).toLocaleDateString()} ${fmt.clock(ms)}`;
}

function Session({ me }: { me: d.Who }) {
  const s = api.currentSession();
  if (!s) return null;
  return (
    <section class="session card" aria-label="your session" data-testid="session">
      <span>Signed in as <b>{me.name}</b>{me.admin ? " (admin)" : ""}</span>
      <span class="dim">access token until {until(s.tokens.expires_at)} (refreshed when it runs out), session until {until(s.tokens.refresh_expires_at)}</span>
      <button onClick={() => void api.signOut()}>Sign out</button>
      <p class="dim small">Sign out revokes this tab's tokens at the cluster. Sessions in other browsers or the CLI end
        when their tokens expire or are revoked there (the cluster has no call that lists a user's sessions).</p>
    </section>
  );
}

function GrantsTable({ who, onPick }: { who: d.Who; onPick?: (bucket: string, perms: string[]) => void }) {
  return (
    <table class="grid" data-testid="grants">
      <thead><tr><th>bucket</th><th>permissions</th></tr></thead>
      <tbody>
        {who.grants.map((g) => (
          <tr key={g.bucket} data-bucket={g.bucket} class={onPick ? "pickable" : ""}>
            <td>{onPick ? <button class="link" onClick={() => onPick(g.bucket, g.permissions)}>{g.bucket === "*" ? "* (every bucket)" : g.bucket}</button>
              : g.bucket === "*" ? "* (every bucket)" : g.bucket}</td>
            <td>{g.permissions.join(", ")}</td>
          </tr>
        ))}
        {who.grants.length === 0 && <tr><td colSpan={2} class="dim">{who.admin ? "none needed: an admin may do everything" : "no grant: this user may do nothing yet"}</td></tr>}
      </tbody>
    </table>
  );
}

function AddUser({ onAdded }: { onAdded: (name: string) => void }) {
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const [repeated, setRepeated] = useState("");
  const [isAdmin, setIsAdmin] = useState(false);
  const [errors, setErrors] = useState<Map<string, string>>(new Map());
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError("");
    const local = admin.newUserErrors(name.trim(), password, repeated);
    setErrors(local);
    if (local.size) return;
    setBusy(true);
    try {
      await admin.addUser(name.trim(), password, isAdmin);
      setName("");
      setIsAdmin(false);
      onAdded(name.trim());
    } catch (err) {
      const m = (err as Error).message;
      const field = admin.userErrorField(m);
      if (field) setErrors(new Map([[field, m]]));
      else setError(m);
    } finally {
      // The password is sent once and kept nowhere.
      setPassword("");
      setRepeated("");
      setBusy(false);
    }
  };
  const field = (key: string, label: string, input: JSX.Element) => (
    <div class={`field${errors.has(key) ? " has-error" : ""}`} data-field={key}>
      <label for={`user-${key}`}>{label}</label>
      {input}
      {errors.has(key) && <span class="field-error" role="alert">{errors.get(key)}</span>}
    </div>
  );
  const clear = (key: string) => errors.has(key) && setErrors(new Map([...errors].filter(([k]) => k !== key)));
  return (
    <form class="add-user composer-form card" onSubmit={submit} aria-label="add user">
      <h3>Add user</h3>
      {field("name", "name", <input id="user-name" autoComplete="off" value={name} maxLength={admin.kMaxUserNameBytes} placeholder="letters, digits, . _ -"
        aria-invalid={errors.has("name") ? "true" : undefined} onInput={(e) => { setName((e.target as HTMLInputElement).value); clear("name"); }} />)}
      {field("password", "password", <input id="user-password" type="password" autoComplete="new-password" value={password}
        placeholder={`at least ${admin.kMinPasswordBytes} bytes`} aria-invalid={errors.has("password") ? "true" : undefined}
        onInput={(e) => { setPassword((e.target as HTMLInputElement).value); clear("password"); }} />)}
      {field("repeated", "password again", <input id="user-repeated" type="password" autoComplete="new-password" value={repeated}
        aria-invalid={errors.has("repeated") ? "true" : undefined} onInput={(e) => { setRepeated((e.target as HTMLInputElement).value); clear("repeated"); }} />)}
      <label class="row"><input type="checkbox" checked={isAdmin} onChange={(e) => setIsAdmin((e.target as HTMLInputElement).checked)} /> admin (may do everything, manage users)</label>
      <div class="row"><button type="submit" class="primary" disabled={busy}>Add user</button></div>
      {error && <p class="error" role="alert">{error}</p>}
    </form>
  );
}

function UserDetail({ user, me, onChanged }: { user: d.Who; me: d.Who; onChanged: () => void }) {
  const [bucket, setBucket] = useState("");
  const [perms, setPerms] = useState<Set<string>>(new Set());
  const [confirm, setConfirm] = useState(false);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    setBucket("");
    setPerms(new Set());
    setConfirm(false);
    setError("");
  }, [user.name]);
  const act = async (what: () => Promise<void>, after?: () => void) => {
    setBusy(true);
    setError("");
    try {
      await what();
      after?.();
      onChanged();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const checkForm = (needPerms: boolean): string => {
    if (!bucket.trim()) return "Name the bucket (or * for every bucket).";
    if (needPerms && perms.size === 0) return "Check at least one permission.";
    return "";
  };
  const doGrant = (e: Event) => {
    e.preventDefault();
    const why = checkForm(true);
    if (why) return setError(why);
    void act(() => admin.grant(user.name, bucket.trim(), admin.kPermissions.filter((p) => perms.has(p))));
  };
  const doRevoke = () => {
    const why = checkForm(true);
    if (why) return setError(why);
    void act(async () => {
      for (const p of admin.kPermissions.filter((x) => perms.has(x))) await admin.revoke(user.name, bucket.trim(), p);
    });
  };
  return (
    <section class="user-detail card" data-testid="user-detail" data-user={user.name}>
      <header class="row">
        <h3>{user.name}{user.admin ? " (admin: may do everything anyway)" : ""}</h3>
        <span class="spacer" />
        {confirm ? (
          <span class="confirm" role="alertdialog" aria-label={`delete user ${user.name}?`} onKeyDown={(e) => e.key === "Escape" && setConfirm(false)}>
            Delete the user “{user.name}”? They can no longer sign in, their sessions stop working, and their grants and S3 keys are gone.
            <button class="danger" disabled={busy} onClick={() => void act(() => admin.removeUser(user.name), () => navigate(href("access")))}>Delete {user.name}</button>
            <button autoFocus onClick={() => setConfirm(false)}>Keep</button>
          </span>
        ) : <button class="danger" disabled={user.name === me.name} title={user.name === me.name ? "you cannot delete yourself here" : undefined}
          onClick={() => setConfirm(true)}>Delete user…</button>}
      </header>
      <GrantsTable who={user} onPick={(b, p) => { setBucket(b); setPerms(new Set(p)); }} />
      <form class="grant-form" onSubmit={doGrant} aria-label={`grants of ${user.name}`}>
        <div class="row">
          <input aria-label="grant bucket" value={bucket} placeholder="bucket, or *" title="a bucket, or * for every bucket" onInput={(e) => setBucket((e.target as HTMLInputElement).value)} />
          {admin.kPermissions.map((p) => (
            <label key={p}><input type="checkbox" name={`perm-${p}`} checked={perms.has(p)} onChange={(e) => {
              const next = new Set(perms);
              if ((e.target as HTMLInputElement).checked) next.add(p);
              else next.delete(p);
              setPerms(next);
            }} /> {p}</label>
          ))}
        </div>
        <div class="row">
          <button type="submit" disabled={busy}>Grant</button>
          <button type="button" disabled={busy} onClick={doRevoke}>Revoke</button>
          <span class="dim small">Grant adds the checked permissions on the bucket; Revoke takes them away. Choosing a grant fills the form.</span>
        </div>
      </form>
      {error && <p class="error" role="alert" data-testid="user-error">{error}</p>}
      <S3Keys user={user.name} />
    </section>
  );
}

export function Access({ auth, selected }: { auth: "unknown" | "open" | "required"; selected: string }) {
  const [me, setMe] = useState<d.Who | null>(null);
  const [users, setUsers] = useState<d.Who[] | null>(null);
  const [error, setError] = useState("");
  const session = api.currentSession();
  const load = () => {
    api.whoami().then((w) => {
      setMe(w);
      if (w.admin) return api.listUsers().then((u) => setUsers(u.sort((a, b) => a.name.localeCompare(b.name))));
      setUsers(null);
    }).catch((e) => setError((e as Error).message));
  };
  useEffect(() => {
    if (auth === "required" && session) load();
  }, [auth, session?.user]);
  if (auth !== "required") {
    return (
      <div class="page access">
        <h2>Access</h2>
        <p class="card" data-testid="access-reason">This cluster runs with auth off: anyone who reaches it may do everything,
          and there are no users, grants or S3 keys in a user store to manage. Turn auth on to use this page
          (<code>{"{\"auth\": {\"enabled\": true}}"}</code> on the proxy and every target; docs/security.md).</p>
      </div>
    );
  }
  const sel = users?.find((u) => u.name === selected) ?? null;
  return (
    <div class="page access">
      <h2>Access</h2>
      {error && <p class="error" role="alert" data-testid="access-error">{error}</p>}
      {me && <Session me={me} />}
      {me && !me.admin && (
        <>
          <p class="card warn" data-testid="access-reason">Only an admin manages users and grants; you are signed in as {me.name}.
            Here are your own grants and S3 keys.</p>
          <h3>Your grants</h3>
          <GrantsTable who={me} />
          <S3Keys user={me.name} />
        </>
      )}
      {me?.admin && (
        <div class="access-layout">
          <div class="users-col">
            <table class="grid" data-testid="users">
              <thead><tr><th>user</th><th>role</th><th>grants</th></tr></thead>
              <tbody>
                {(users ?? []).map((u) => (
                  <tr key={u.name} data-user={u.name} class={u.name === selected ? "selected" : ""}>
                    <td><a href={href("access", u.name)}>{u.name}</a></td>
                    <td>{u.admin ? "admin" : "user"}</td>
                    <td class="small">{u.grants.map((g) => `${g.bucket}: ${g.permissions.join(", ")}`).join("; ")}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <AddUser onAdded={(name) => { load(); navigate(href("access", name)); }} />
          </div>
          <div class="detail-col">
            {sel ? <UserDetail user={sel} me={me} onChanged={load} />
              : <p class="dim card">{selected && users ? `No user “${selected}”.` : "Choose a user to see and change their grants and S3 keys."}</p>}
          </div>
        </div>
      )}
    </div>
  );
}

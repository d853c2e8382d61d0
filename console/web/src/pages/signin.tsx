// The sign-in form (auth on): POST /v1/tokens; the token pair stays in
// sessionStorage (gone with the tab, never localStorage).
import { useState } from "preact/hooks";
import * as api from "../api";

export function SignIn({ expired, onDone }: { expired: boolean; onDone: () => void }) {
  const [user, setUser] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      await api.signIn(user, password);
      setPassword("");
      onDone();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="signin card" onSubmit={submit} aria-label="sign in">
      <h2>Sign in to Tessera</h2>
      {expired && <p class="warn" role="status">Your session expired; sign in again.</p>}
      <label>User <input autoComplete="username" value={user} onInput={(e) => setUser((e.target as HTMLInputElement).value)} required autoFocus /></label>
      <label>Password <input type="password" autoComplete="current-password" value={password} onInput={(e) => setPassword((e.target as HTMLInputElement).value)} required /></label>
      {error && <p class="error" role="alert">{error}</p>}
      <button type="submit" disabled={busy}>Sign in</button>
    </form>
  );
}

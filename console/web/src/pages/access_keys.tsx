// A user's S3 access keys (docs/api.md#s3-access-keys): list, create — the
// secret is shown once, from the creation's answer, and kept only in this
// component's state until it is dismissed or the page is left — and delete
// after a confirmation naming the key. An admin manages anyone's keys, a
// user their own.
import { useEffect, useState } from "preact/hooks";
import * as admin from "../admin_api";
import * as fmt from "../format";

export function S3Keys({ user }: { user: string }) {
  const [keys, setKeys] = useState<admin.S3Key[] | null>(null);
  const [description, setDescription] = useState("");
  const [created, setCreated] = useState<admin.S3KeyCreated | null>(null);
  const [confirm, setConfirm] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const load = () => admin.listS3Keys(user).then(setKeys).catch((e) => setError((e as Error).message));
  useEffect(() => {
    setKeys(null);
    setCreated(null);
    setConfirm("");
    setError("");
    void load();
  }, [user]);
  const create = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError("");
    try {
      setCreated(await admin.createS3Key(user, description.trim()));
      setDescription("");
      await load();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const remove = async (key: string) => {
    setConfirm("");
    setError("");
    try {
      await admin.deleteS3Key(user, key);
      if (created?.access_key === key) setCreated(null);
      await load();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <section class="s3-keys" data-testid="s3-keys" aria-label={`S3 keys of ${user}`}>
      <h3>S3 access keys of {user}</h3>
      <p class="dim small">Keys S3 clients sign with (SigV4, endpoint <code>{location.origin}/s3</code>); each acts with {user}'s grants.</p>
      {created && (
        <div class="secret card" role="status" data-testid="s3-key-created">
          <p><b>Copy the secret now: it is not shown again.</b></p>
          <dl class="kv">
            <dt>access key</dt><dd><code data-testid="s3-key-id">{created.access_key}</code></dd>
            <dt>secret key</dt><dd><code data-testid="s3-key-secret">{created.secret_key}</code></dd>
          </dl>
          <button onClick={() => setCreated(null)}>Done</button>
        </div>
      )}
      <table class="grid">
        <thead><tr><th>access key</th><th>description</th><th>created</th><th /></tr></thead>
        <tbody>
          {(keys ?? []).map((k) => (
            <tr key={k.access_key} data-key={k.access_key}>
              <td><code>{k.access_key}</code></td>
              <td>{k.description}</td>
              <td>{k.created_at ? `${new Date(k.created_at * 1000).toLocaleDateString()} ${fmt.clock(k.created_at * 1000)}` : ""}</td>
              <td>
                {confirm === k.access_key ? (
                  <span class="confirm" role="alertdialog" aria-label={`delete key ${k.access_key}?`} onKeyDown={(e) => e.key === "Escape" && setConfirm("")}>
                    Delete {k.access_key}? S3 calls signed with it are refused from the next request.
                    <button class="danger" onClick={() => void remove(k.access_key)}>Delete key</button>
                    <button autoFocus onClick={() => setConfirm("")}>Keep</button>
                  </span>
                ) : <button onClick={() => setConfirm(k.access_key)}>Delete…</button>}
              </td>
            </tr>
          ))}
          {keys !== null && keys.length === 0 && <tr><td colSpan={4} class="dim">no key</td></tr>}
        </tbody>
      </table>
      <form class="row" onSubmit={create} aria-label="new S3 key">
        <input aria-label="key description" value={description} maxLength={256} placeholder="description (optional)"
          onInput={(e) => setDescription((e.target as HTMLInputElement).value)} />
        <button type="submit" disabled={busy}>Create key</button>
      </form>
      {error && <p class="error" role="alert" data-testid="s3-keys-error">{error}</p>}
    </section>
  );
}

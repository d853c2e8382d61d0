// The upload queue: per-file and total progress, cancel and retry.
import { useEffect, useState } from "preact/hooks";
import * as fmt from "../format";
import { uploads } from "../uploads";

export function UploadPanel() {
  const [, setTick] = useState(0);
  useEffect(() => uploads.subscribe(() => setTick((t) => t + 1)), []);
  if (uploads.items.length === 0) return null;
  const t = uploads.totals();
  return (
    <section class="uploads" data-testid="uploads" aria-label="uploads">
      <header>
        <h3>Uploads</h3>
        <span data-testid="upload-total">{t.done}/{t.count} files, {fmt.bytes(t.sent)} of {fmt.bytes(t.total)}{t.failed ? `, ${t.failed} failed` : ""}</span>
        <progress max={Math.max(1, t.total)} value={t.sent} />
        <button onClick={() => uploads.clearFinished()}>Clear finished</button>
      </header>
      <ul>
        {uploads.items.slice(-200).map((u) => (
          <li key={u.id} data-state={u.state}>
            <span class="name">{u.bucket}/{u.name}</span>
            <progress max={Math.max(1, u.file.size)} value={u.state === "done" ? u.file.size : u.sent} />
            <span class="state">{u.state}{u.error ? `: ${u.error}` : ""}</span>
            {(u.state === "queued" || u.state === "sending") && <button onClick={() => uploads.cancel(u)}>Cancel</button>}
            {(u.state === "failed" || u.state === "cancelled") && <button onClick={() => uploads.retry(u)}>Retry</button>}
          </li>
        ))}
      </ul>
    </section>
  );
}

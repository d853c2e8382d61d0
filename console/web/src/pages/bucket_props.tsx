// A bucket's properties as the desktop console's properties dialog shows
// them: its protection (copies or erasure coding, and whether some objects
// may still lack them), its object count and size from the targets' last
// usage scan, when it was created, its checksum and versioning, and who may
// do what on it; and the form that changes the protection
// (protection_form.tsx), read-only without the admin-bucket permission.
// Only the public REST API: HEAD /v1/buckets/<b> (read permission), GET
// /v1/whoami and, for an admin, GET /v1/users; PATCH /v1/buckets/<b> to
// change. Read again when the feed says the buckets changed.
import { useEffect, useState } from "preact/hooks";
import * as api from "../api";
import * as d from "../decode";
import * as fmt from "../format";
import { ProtectionFormView } from "./protection_form";

interface Access {
  me: d.Who;
  users: d.Who[] | null;  // admins only
}

function AccessLine({ bucket, access }: { bucket: string; access: Access | null }) {
  if (!api.currentSession()) return <>auth is off: every caller may do everything</>;
  if (!access) return <span class="dim">reading…</span>;
  const mine = d.permissionsOn(access.me, bucket);
  const others = (access.users ?? []).filter((u) => u.name !== access.me.name)
    .map((u) => ({ name: u.name, admin: u.admin, perms: d.permissionsOn(u, bucket) }))
    .filter((u) => u.perms.length > 0);
  return (
    <>
      <span data-testid="props-mine">you ({access.me.name}{access.me.admin ? ", admin" : ""}): {mine.length ? mine.join(", ") : "nothing"}</span>
      {access.users && (
        <span class="dim" data-testid="props-others">
          {" · "}{others.length ? others.map((u) => `${u.name}${u.admin ? " (admin)" : ""}: ${u.perms.join(", ")}`).join("; ") : "no other user may use it"}
        </span>
      )}
    </>
  );
}

export function BucketProps({ bucket, usage, bmdVersion, onClose }:
  { bucket: string; usage?: d.BucketInfo; bmdVersion: number; onClose: () => void }) {
  const [props, setProps] = useState<d.BucketProps | null>(null);
  const [access, setAccess] = useState<Access | null>(null);
  const [error, setError] = useState("");
  useEffect(() => {
    let live = true;
    api.bucketProps(bucket).then((p) => live && (setProps(p), setError(""))).catch((e) => live && setError((e as Error).message));
    return () => void (live = false);
  }, [bucket, bmdVersion]);
  // Read back after a change (the feed's bucket metadata may come later).
  const readBack = async () => setProps(await api.bucketProps(bucket));
  useEffect(() => {
    let live = true;
    setAccess(null);
    if (!api.currentSession()) return;
    (async () => {
      const me = await api.whoami();
      const users = me.admin ? await api.listUsers() : null;
      if (live) setAccess({ me, users });
    })().catch((e) => live && setError((e as Error).message));
    return () => void (live = false);
  }, [bucket]);
  const session = api.currentSession();
  const mine = access ? d.permissionsOn(access.me, bucket) : [];
  const canEdit = !session || mine.includes("admin-bucket");
  const readOnlyWhy = !access ? "reading your permissions…"
    : `read-only: changing the protection needs the admin-bucket permission on ${bucket} (you may: ${mine.length ? mine.join(", ") : "nothing"})`;
  const pending = props && ((props.mirror.enabled && props.mirror.pending) || (props.ec.enabled && props.ec.pending));
  return (
    <section class="bucket-props" data-testid="bucket-props" aria-label={`properties of ${bucket}`}>
      <header>
        <h3>Properties of {bucket}</h3>
        <button onClick={onClose} aria-label="close the properties">✕</button>
      </header>
      {error && <p class="error" role="alert">{error}</p>}
      {props ? (
        <dl class="kv">
          <dt>protection</dt>
          <dd data-testid="props-protection">
            {d.protectionWords(props)}
            {pending && <span class="warn"> · at risk until a rebalance or reprotect ends: some objects may lack {props.ec.enabled ? "slices" : "copies"}</span>}
          </dd>
          <dt>objects</dt>
          <dd data-testid="props-objects">
            {usage?.objects != null && usage.scanned_ns > 0
              ? `${usage.objects} objects, ${fmt.bytes(usage.bytes ?? 0)} at the targets' last scan (${fmt.clock(usage.scanned_ns / 1e6)})`
              : "not counted yet (every target's usage scan reports it)"}
          </dd>
          <dt>created</dt>
          <dd>{props.created_ns ? new Date(props.created_ns / 1e6).toLocaleString() : "—"}</dd>
          <dt>checksum</dt>
          <dd>{props.checksum || "—"}{props.validate_warm_get ? ", checked on every GET" : ", checked when written"}</dd>
          <dt>versioning</dt>
          <dd>{props.versioning ? "on" : "off"}</dd>
          {props.ec.enabled && <><dt>EC size limit</dt><dd>objects under {fmt.bytes(props.ec.objsize_limit)} are copied whole</dd></>}
          <dt>access</dt>
          <dd data-testid="props-access"><AccessLine bucket={bucket} access={access} /></dd>
        </dl>
      ) : !error && <p class="dim">reading…</p>}
      {props && <ProtectionFormView bucket={bucket} props={props} canEdit={canEdit} readOnlyWhy={readOnlyWhy} onApplied={readBack} />}
    </section>
  );
}

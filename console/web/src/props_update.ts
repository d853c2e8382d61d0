// A bucket's protection as a form, and the set-bprops update that takes the
// bucket from its properties to the form (only what changed), with what the
// change starts on the cluster: the proxy starts a reprotect job when the
// copies across targets or on mountpaths change, or erasure coding is
// turned on (daemon/proxy/protection.cpp). The cluster checks the values
// (copies and slices against its targets; slices fixed while erasure
// coding is on) and names the field it refuses; fieldOf() maps its message
// to the form's field.
import { BucketProps } from "./decode";

// The API's own bounds (shared/api/bmd.h): the form asks for nothing the
// cluster cannot take; the cluster's target count is checked by the cluster.
export const kMaxCopies = 8;
export const kMaxData = 16;
export const kMaxParity = 8;
export const kMaxObjsizeLimit = 1 << 30;

export type Mode = "none" | "mirror" | "ec";
export interface ProtectionForm {
  mode: Mode;
  copies: number;     // targets holding each object, mirror mode
  data: number;       // ec data slices
  parity: number;     // ec parity slices
  limit: number;      // ec objsize_limit, bytes
  validateWarmGet: boolean;
}
export type Field = "mode" | "copies" | "slices" | "limit" | "checksum";

export function formOf(p: BucketProps): ProtectionForm {
  const mode: Mode = p.ec.enabled ? "ec" : p.mirror.enabled && p.mirror.copies > 1 ? "mirror" : "none";
  return {
    mode, copies: Math.max(2, p.mirror.copies), data: p.ec.data_slices || 2, parity: p.ec.parity_slices || 1,
    limit: p.ec.objsize_limit, validateWarmGet: p.validate_warm_get,
  };
}

const targetCopies = (m: BucketProps["mirror"]) => (m.enabled && m.across_targets ? m.copies : 1);
const mountpathCopies = (m: BucketProps["mirror"]) => (m.enabled && !m.across_targets ? m.copies : 1);

export interface Update {
  value: Record<string, unknown> | null;  // null: nothing changes
  job: string;  // what the reprotect job the change starts does; "" when none starts
}

// Whole numbers within bounds, else the field that is wrong and why.
export function checkForm(f: ProtectionForm): { field: Field; message: string } | null {
  const whole = (n: number, lo: number, hi: number) => Number.isInteger(n) && n >= lo && n <= hi;
  if (f.mode === "mirror" && !whole(f.copies, 2, kMaxCopies)) {
    return { field: "copies", message: `copies must be a whole number from 2 to ${kMaxCopies}` };
  }
  if (f.mode === "ec") {
    if (!whole(f.data, 1, kMaxData) || !whole(f.parity, 1, kMaxParity)) {
      return { field: "slices", message: `data slices from 1 to ${kMaxData}, parity slices from 1 to ${kMaxParity}` };
    }
    if (!whole(f.limit, 0, kMaxObjsizeLimit)) {
      return { field: "limit", message: `the size limit is a whole number of bytes from 0 to ${kMaxObjsizeLimit}` };
    }
  }
  return null;
}

export function updateOf(p: BucketProps, f: ProtectionForm): Update {
  const value: Record<string, unknown> = {};
  const mirrorOn = p.mirror.enabled && p.mirror.copies > 1;
  if (f.mode === "mirror") {
    if (!mirrorOn || !p.mirror.across_targets || p.mirror.copies !== f.copies) {
      value.mirror = { enabled: true, copies: f.copies, across_targets: true };
    }
  } else if (p.mirror.enabled) {
    value.mirror = { enabled: false };
  }
  if (f.mode === "ec") {
    const ec: Record<string, unknown> = {};
    if (!p.ec.enabled) ec.enabled = true;
    if (!p.ec.enabled || f.data !== p.ec.data_slices) ec.data_slices = f.data;
    if (!p.ec.enabled || f.parity !== p.ec.parity_slices) ec.parity_slices = f.parity;
    if (f.limit !== p.ec.objsize_limit) ec.objsize_limit = f.limit;
    if (Object.keys(ec).length) value.ec = ec;
  } else if (p.ec.enabled) {
    value.ec = { enabled: false };
  }
  if (f.validateWarmGet !== p.validate_warm_get) value.checksum = { validate_warm_get: f.validateWarmGet };
  if (!Object.keys(value).length) return { value: null, job: "" };

  const beforeT = targetCopies(p.mirror);
  const afterT = f.mode === "mirror" ? f.copies : 1;
  // The form keeps copies across targets only: mountpath copies go with any mirror change.
  const mpChanged = mountpathCopies(p.mirror) !== 1 && value.mirror !== undefined;
  let job = "";
  if (f.mode === "ec" && !p.ec.enabled) {
    job = `cuts every object already in the bucket into ${f.data} data + ${f.parity} parity slices ` +
      "(smaller ones copied whole); until it ends those objects are not protected";
  } else if (afterT > beforeT) {
    job = `makes ${afterT} copies of every object, each on another target; until it ends the bucket is at risk`;
  } else if (afterT < beforeT || mpChanged) {
    job = "drops the copies no longer asked for";
  }
  return { value, job };
}

// The form's field a refusal of the cluster names, "" when none.
export function fieldOf(message: string): Field | "" {
  if (/ec\.enabled and mirror\.enabled/.test(message)) return "mode";
  if (/mirror\.copies/.test(message)) return "copies";
  if (/ec\.(data|parity)_slices/.test(message)) return "slices";
  if (/ec\.objsize_limit/.test(message)) return "limit";
  if (/checksum\./.test(message)) return "checksum";
  return "";
}

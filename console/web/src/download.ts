// Downloads. Without auth a plain link to /s3/<bucket>/<key> streams the
// object to disk at any size. With auth on the proxy needs the token in an
// Authorization header, which a link cannot carry; so a signed-in download
// fetches the bytes with the token and saves them from memory (a Blob),
// up to the tab's download cap (settings.ts: 256 MiB, lowered for a test
// with ?download_cap=BYTES). Above it the page says how to get the object
// instead.
// Why not a service worker (it would have to hold the token and outlive
// the page's session rules) or a signed URL (a new proxy endpoint and key
// use for what the CLI and S3 clients already do): docs/web-console.md.
import * as api from "./api";
import * as fmt from "./format";
import { kDownloadCap as kCapSetting, setting } from "./settings";

export const kDownloadCap = kCapSetting.def;  // 256 MiB held in the tab's memory at most

// Why an object of `size` bytes cannot be downloaded in the page with a
// session; "" when it can.
export function downloadRefusal(size: number, cap = kDownloadCap): string {
  if (size <= cap) return "";
  return `${fmt.bytes(size)} is more than the ${fmt.bytes(cap)} a signed-in browser download holds in memory; ` +
    "use `tessera get BUCKET/NAME` or an S3 client with a key";
}

// Saves bucket/name through the page: a HEAD for the size, then the bytes
// with the token. Throws an Error whose message the page shows.
export async function downloadWithToken(bucket: string, name: string): Promise<void> {
  const path = api.downloadUrl(bucket, name);
  const head = await api.call(path, { method: "HEAD" });
  const size = Number(head.headers.get("Content-Length") ?? "-1");
  const cap = setting(kCapSetting);
  const refusal = downloadRefusal(size, cap);
  if (refusal) throw new Error(refusal);
  const r = await api.call(path);
  const blob = await r.blob();
  if (blob.size > cap) throw new Error(downloadRefusal(blob.size, cap));  // it grew since the HEAD
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name.split("/").pop() || "object";
  document.body.appendChild(a);
  a.click();
  a.remove();
  // The browser has taken the URL once the click's download started.
  window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

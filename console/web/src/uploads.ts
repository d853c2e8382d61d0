// Uploads: files (and folders, walked from a drop) PUT one by one through
// the proxy's S3 path with XMLHttpRequest for byte progress, at most
// kParallel at once; each can be cancelled and retried.
import * as api from "./api";

export const kParallel = 3;

export type UploadState = "queued" | "sending" | "done" | "failed" | "cancelled";

export interface Upload {
  id: number;
  bucket: string;
  name: string;
  file: File;
  sent: number;
  state: UploadState;
  error: string;
  xhr: XMLHttpRequest | null;
}

export class UploadQueue {
  items: Upload[] = [];
  private nextId = 1;
  private listeners = new Set<() => void>();
  onUploaded: (bucket: string) => void = () => undefined;

  subscribe(l: () => void): () => void {
    this.listeners.add(l);
    return () => void this.listeners.delete(l);
  }
  private changed(): void {
    this.listeners.forEach((l) => l());
  }

  add(bucket: string, files: { name: string; file: File }[]): void {
    for (const f of files) {
      this.items.push({ id: this.nextId++, bucket, name: f.name, file: f.file, sent: 0, state: "queued", error: "", xhr: null });
    }
    this.pump();
    this.changed();
  }

  totals(): { sent: number; total: number; done: number; failed: number; count: number } {
    let sent = 0;
    let total = 0;
    let done = 0;
    let failed = 0;
    for (const u of this.items) {
      if (u.state === "cancelled") continue;
      total += u.file.size;
      sent += u.state === "done" ? u.file.size : u.sent;
      if (u.state === "done") done++;
      if (u.state === "failed") failed++;
    }
    return { sent, total, done, failed, count: this.items.filter((u) => u.state !== "cancelled").length };
  }

  cancel(u: Upload): void {
    if (u.state === "sending") u.xhr?.abort();
    if (u.state === "queued" || u.state === "sending") u.state = "cancelled";
    this.pump();
    this.changed();
  }
  retry(u: Upload): void {
    if (u.state !== "failed" && u.state !== "cancelled") return;
    u.state = "queued";
    u.sent = 0;
    u.error = "";
    this.pump();
    this.changed();
  }
  clearFinished(): void {
    this.items = this.items.filter((u) => u.state === "queued" || u.state === "sending" || u.state === "failed");
    this.changed();
  }

  private pump(): void {
    let running = this.items.filter((u) => u.state === "sending").length;
    for (const u of this.items) {
      if (running >= kParallel) break;
      if (u.state !== "queued") continue;
      running++;
      this.send(u);
    }
  }

  private send(u: Upload, renewed = false): void {
    const xhr = new XMLHttpRequest();
    u.xhr = xhr;
    u.state = "sending";
    xhr.open("PUT", `/s3/${encodeURIComponent(u.bucket)}/${api.objectPath(u.name)}`);
    const s = api.currentSession();
    if (s) xhr.setRequestHeader("Authorization", `Bearer ${s.tokens.token}`);
    xhr.upload.onprogress = (e) => {
      u.sent = e.loaded;
      this.changed();
    };
    const finish = (state: UploadState, error = "") => {
      if (u.state === "cancelled") return;
      u.state = state;
      u.error = error;
      u.xhr = null;
      if (state === "done") {
        u.sent = u.file.size;
        this.onUploaded(u.bucket);
      }
      this.pump();
      this.changed();
    };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) return finish("done");
      if (xhr.status === 401 && !renewed && api.currentSession()) {
        // The access token expired or was revoked under the upload: once
        // more with a refreshed one.
        void api.renewAfter401().then((ok) => {
          if (u.state !== "sending" || u.xhr !== xhr) return;  // cancelled meanwhile
          if (ok) {
            u.sent = 0;
            this.send(u, true);
          } else {
            finish("failed", "401: the session ended; sign in and retry");
          }
        });
        return;
      }
      let msg = `${xhr.status} ${xhr.statusText}`;
      const m = /<Message>([^<]*)<\/Message>/.exec(xhr.responseText) ?? /"message":"([^"]*)"/.exec(xhr.responseText);
      if (m) msg += `: ${m[1]}`;
      finish("failed", msg);
    };
    xhr.onerror = () => finish("failed", "network error");
    xhr.onabort = () => finish("cancelled");
    xhr.send(u.file);
  }
}

export const uploads = new UploadQueue();

// The files of a drop: plain files, and folders walked recursively
// (webkitGetAsEntry), each named by its path inside what was dropped.
export async function droppedFiles(dt: DataTransfer): Promise<{ name: string; file: File }[]> {
  const out: { name: string; file: File }[] = [];
  const entries: FileSystemEntry[] = [];
  for (const item of Array.from(dt.items)) {
    const e = item.kind === "file" ? item.webkitGetAsEntry?.() : null;
    if (e) entries.push(e);
  }
  if (entries.length === 0) {
    for (const f of Array.from(dt.files)) out.push({ name: f.name, file: f });
    return out;
  }
  const walk = async (e: FileSystemEntry, path: string): Promise<void> => {
    if (e.isFile) {
      const file = await new Promise<File>((res, rej) => (e as FileSystemFileEntry).file(res, rej));
      out.push({ name: path + e.name, file });
    } else if (e.isDirectory) {
      const reader = (e as FileSystemDirectoryEntry).createReader();
      for (;;) {
        const batch = await new Promise<FileSystemEntry[]>((res, rej) => reader.readEntries(res, rej));
        if (batch.length === 0) break;
        for (const c of batch) await walk(c, `${path}${e.name}/`);
      }
    }
  };
  for (const e of entries) await walk(e, "");
  return out;
}

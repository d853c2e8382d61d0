// Units as the desktop console prints them (1-2-5 steps, SI for rates).

export function bytes(n: number): string {
  if (!Number.isFinite(n) || n < 0) return "—";
  const units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${v} B` : `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

export function rate(bytesPerSec: number): string {
  const units = ["B/s", "kB/s", "MB/s", "GB/s", "TB/s"];
  let i = 0;
  let v = bytesPerSec;
  while (Math.abs(v) >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${small(v)} ${units[i]}`;
}

// 0.5 stays 0.5 (an axis of 0, 0.5, 1 must not read 0, 1, 1); 12.3 is 12.
function small(v: number): string {
  return Math.abs(v) < 10 && !Number.isInteger(v) ? v.toFixed(1) : v.toFixed(0);
}

export function count(v: number): string {
  if (v >= 1e6) return `${(v / 1e6).toFixed(1)}M`;
  if (v >= 1e3) return `${(v / 1e3).toFixed(1)}k`;
  return small(v);
}

export function latency(ns: number): string {
  if (ns <= 0) return "—";
  if (ns < 1e6) return `${(ns / 1e3).toFixed(0)} µs`;
  if (ns < 1e9) return `${(ns / 1e6).toFixed(ns < 1e7 ? 1 : 0)} ms`;
  return `${(ns / 1e9).toFixed(1)} s`;
}

export function duration(ns: number): string {
  let s = Math.floor(ns / 1e9);
  const d = Math.floor(s / 86400);
  s -= d * 86400;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  if (d > 0) return `${d}d ${h}h`;
  if (h > 0) return `${h}h ${m}m`;
  if (m > 0) return `${m}m ${s}s`;
  return `${s}s`;
}

export function clock(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

export function percent(v: number): string {
  return `${v.toFixed(v < 10 ? 1 : 0)} %`;
}

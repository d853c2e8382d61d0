// Reads the members of a .tar from its first bytes (ustar, GNU long names,
// pax path records). Members cut off by the end of `data` are reported
// with `complete: false`; nothing past the data is guessed.

export interface TarMember {
  name: string;
  size: number;
  data: Uint8Array | null;  // null when the member's bytes are past the data read
}

const dec = new TextDecoder();

function field(b: Uint8Array, off: number, len: number): string {
  let end = off;
  while (end < off + len && b[end] !== 0) end++;
  return dec.decode(b.subarray(off, end));
}
function octal(b: Uint8Array, off: number, len: number): number {
  if (b[off] & 0x80) {
    // GNU base-256 for sizes over 8 GiB
    let v = 0;
    for (let i = off + 1; i < off + len; i++) v = v * 256 + b[i];
    return v;
  }
  const s = field(b, off, len).trim();
  return s ? parseInt(s, 8) : 0;
}

export interface TarRead {
  members: TarMember[];
  truncated: boolean;  // the data ended before the archive did
  error: string;
}

export function readTar(data: Uint8Array, maxMembers = 100000): TarRead {
  const members: TarMember[] = [];
  let off = 0;
  let longName = "";
  while (off + 512 <= data.length) {
    const h = data.subarray(off, off + 512);
    if (h.every((x) => x === 0)) return { members, truncated: false, error: "" };
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : h[i];
    if (sum !== octal(h, 148, 8)) return { members, truncated: false, error: `bad tar header checksum at byte ${off}` };
    const size = octal(h, 124, 12);
    const type = String.fromCharCode(h[156] || 48);
    const prefix = field(h, 345, 155);
    let name = field(h, 0, 100);
    if (prefix && dec.decode(h.subarray(257, 262)) === "ustar") name = `${prefix}/${name}`;
    const body = off + 512;
    const end = body + size;
    const bytes = end <= data.length ? data.subarray(body, end) : null;
    off = body + Math.ceil(size / 512) * 512;
    if (type === "L") {
      longName = bytes ? field(bytes, 0, bytes.length) : "";
      continue;
    }
    if (type === "x") {
      if (bytes) {
        const m = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(dec.decode(bytes));
        if (m) longName = m[1];
      }
      continue;
    }
    if (type === "g") continue;
    if (longName) {
      name = longName;
      longName = "";
    }
    if (type === "0" || type === "\0" || type === "7") {
      members.push({ name: name.replace(/^\.\//, ""), size, data: bytes });
      if (members.length >= maxMembers) return { members, truncated: true, error: "" };
    }
  }
  return { members, truncated: true, error: "" };
}

// WebDataset's key and field of a member name: the key is the name up to
// the first dot of its last component (`train/0001.jpg` -> `train/0001`,
// field `jpg`).
export function wdsSplit(name: string): { key: string; field: string } {
  const slash = name.lastIndexOf("/");
  const dot = name.indexOf(".", slash + 1);
  if (dot < 0) return { key: name, field: "" };
  return { key: name.slice(0, dot), field: name.slice(dot + 1) };
}

// The proxy's spec refusals name each bad field as a JSON pointer:
// "invalid ishard spec: /shard_size: size ...; /sort: ..." ->
// {shard_size: "size ...", sort: "..."}; a message without pointers is
// returned whole in `rest`.
export function fieldErrors(message: string): { byField: Map<string, string>; rest: string } {
  const byField = new Map<string, string>();
  const body = message.replace(/^[^/]*?:\s*(?=\/)/, "");
  const re = /\/([A-Za-z0-9_/]+): (.*?)(?=; \/[A-Za-z0-9_/]+: |$)/g;
  let m: RegExpExecArray | null;
  let matched = false;
  while ((m = re.exec(body))) {
    matched = true;
    byField.set(m[1], m[2]);
  }
  return { byField, rest: matched ? "" : message };
}


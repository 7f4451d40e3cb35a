/**
 * Content hashes in the two forms the archive records: MediaWiki's SHA-1 in
 * base 36 (lowercase, zero-padded to 31 digits) and SHA-256 in hex.
 */
export async function sha1Base36(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-1", bytes));
  let n = 0n;
  for (const b of digest) n = (n << 8n) | BigInt(b);
  return n.toString(36).padStart(31, "0");
}

export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)));
}

export function toHex(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += b.toString(16).padStart(2, "0");
  return s;
}

export function fromHex(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

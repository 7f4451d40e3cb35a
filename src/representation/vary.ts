/**
 * Adds names to `Vary` once each, keeping what is there: every dimension a
 * response was negotiated on must be named, or a shared cache hands one
 * client's coding to another.
 *
 * @example
 * addVary(headers, "Accept-Encoding");   // "Accept" → "Accept, Accept-Encoding"
 */
export function addVary(headers: Headers, ...names: string[]): void {
  const current = (headers.get("vary") ?? "")
    .split(",")
    .map((v) => v.trim())
    .filter(Boolean);
  if (current.includes("*")) return;
  const lower = new Set(current.map((v) => v.toLowerCase()));
  for (const name of names) {
    if (lower.has(name.toLowerCase())) continue;
    current.push(name);
    lower.add(name.toLowerCase());
  }
  headers.set("vary", current.join(", "));
}

/** Whether `Vary` already names `name`: the response was negotiated on it upstream. */
export function variesOn(headers: Headers, name: string): boolean {
  return (headers.get("vary") ?? "")
    .split(",")
    .some((v) => v.trim().toLowerCase() === name.toLowerCase() || v.trim() === "*");
}

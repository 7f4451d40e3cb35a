/**
 * The dashboard's one purge form, turned into a body in the shape of
 * Cloudflare's purge API, which `ingestPurge` validates item by item. The
 * form sends one item per line; blank lines are skipped, and each item
 * keeps its line number so a refusal can point at the line.
 *
 * @example
 * purgeRequest({ kind: "tags", items: "page:Vellum\n\nns:0", soft: "1" });
 * // { ok: true, body: { tags: ["page:Vellum", "ns:0"], soft: true }, lines: [1, 3] }
 */
export const PURGE_KINDS = [
  { value: "files", label: "URLs", example: "https://archive.example/page/Vellum" },
  { value: "tags", label: "Cache tags", example: "page:Vellum" },
  { value: "prefixes", label: "URL prefixes", example: "archive.example/page/Vellum" },
  { value: "hosts", label: "Hosts", example: "archive.example" },
  { value: "everything", label: "Everything", example: "" },
] as const;

export type PurgeKind = (typeof PURGE_KINDS)[number]["value"];

/** What the operator typed, to fill the form again after a refusal. */
export interface PurgeFormValues {
  kind: PurgeKind;
  items: string;
  soft: boolean;
}

export type PurgeRequest =
  | { ok: true; values: PurgeFormValues; body: Record<string, unknown>; lines: number[] }
  | { ok: false; values: PurgeFormValues; message: string };

const isKind = (v: unknown): v is PurgeKind => PURGE_KINDS.some((k) => k.value === v);

export function purgeRequest(form: Record<string, unknown>): PurgeRequest {
  const values: PurgeFormValues = {
    kind: isKind(form.kind) ? form.kind : "files",
    items: typeof form.items === "string" ? form.items : "",
    soft: form.soft === "1" || form.soft === "on",
  };
  if (!isKind(form.kind))
    return { ok: false, values, message: "Choose what to purge: URLs, cache tags, URL prefixes, hosts or everything." };
  const soft = values.soft ? { soft: true } : {};
  if (values.kind === "everything") return { ok: true, values, body: { purge_everything: true, ...soft }, lines: [] };
  const items: string[] = [];
  const lines: number[] = [];
  values.items.split(/\r?\n/).forEach((line, i) => {
    const item = line.trim();
    if (item === "") return;
    items.push(item);
    lines.push(i + 1);
  });
  if (items.length === 0) return { ok: false, values, message: "Enter at least one item, one per line." };
  return { ok: true, values, body: { [values.kind]: items, ...soft }, lines };
}

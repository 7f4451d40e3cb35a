/**
 * The dashboard's two takedown forms, read into what src/writes/page-writes.ts
 * takes. A reason is required (it goes in the takedown log with the
 * operator's name), trimmed, and at most page.maxReasonBytes, as the write
 * API asks. The revision form sends each field's box (ticked: hidden) and the
 * state the page showed (`was_<field>`); only a field whose box differs from
 * what was shown changes, so a form left open while someone else changed
 * another field does not undo their change.
 *
 * @example
 * revisionForm({ reason: "a phone number", content: "1", was_content: "0", was_comment: "0", was_contributor: "0" });
 * // { ok: true, change: { content: true }, reason: "a phone number", values: … }
 * deletionForm({ deleted: "1", reason: "" }); // { ok: false, message: "Give a reason: …", values: … }
 */
import { LIMITS } from "../limits.ts";
import { TAKEDOWN_FIELDS, type TakedownField } from "../purge/takedown-log.ts";

/** What the operator sent, to fill the form again after a refusal. */
export interface RevisionFormValues {
  hidden: Partial<Record<TakedownField, boolean>>;
  reason: string;
}

export type RevisionForm =
  | { ok: true; change: Partial<Record<TakedownField, boolean>>; reason: string; values: RevisionFormValues }
  | { ok: false; message: string; values: RevisionFormValues };

export interface DeletionFormValues {
  deleted: boolean;
  reason: string;
}

export type DeletionForm =
  | { ok: true; deleted: boolean; reason: string; values: DeletionFormValues }
  | { ok: false; message: string; values: DeletionFormValues };

export const REASON_REQUIRED = "Give a reason: it is recorded in the takedown log with your name.";

const text = (v: unknown) => (typeof v === "string" ? v : "");
const ticked = (v: unknown) => v === "1" || v === "on";

/** Why a reason is refused, or null if it will do. */
function reasonProblem(reason: string): string | null {
  if (reason === "") return REASON_REQUIRED;
  if (new TextEncoder().encode(reason).byteLength > LIMITS.page.maxReasonBytes)
    return `The reason is over page.maxReasonBytes (${LIMITS.page.maxReasonBytes} bytes of UTF-8); shorten it.`;
  return null;
}

export function revisionForm(form: Record<string, unknown>): RevisionForm {
  const reason = text(form.reason).trim();
  const change: Partial<Record<TakedownField, boolean>> = {};
  const hidden: Partial<Record<TakedownField, boolean>> = {};
  for (const field of TAKEDOWN_FIELDS) {
    // A field the page showed no box for (a text the archive never held) sends no `was_`: it stays.
    if (form[`was_${field}`] === undefined) continue;
    hidden[field] = ticked(form[field]);
    if (hidden[field] !== ticked(form[`was_${field}`])) change[field] = hidden[field];
  }
  const values = { hidden, reason: text(form.reason) };
  const problem = reasonProblem(reason);
  if (problem) return { ok: false, message: problem, values };
  if (Object.keys(change).length === 0)
    return { ok: false, message: "Nothing to change: tick or untick at least one box.", values };
  return { ok: true, change, reason, values };
}

export function deletionForm(form: Record<string, unknown>): DeletionForm {
  const reason = text(form.reason).trim();
  const values = { deleted: ticked(form.deleted), reason: text(form.reason) };
  if (form.deleted !== "1" && form.deleted !== "0")
    return { ok: false, message: "Say whether to delete or restore the page.", values };
  const problem = reasonProblem(reason);
  if (problem) return { ok: false, message: problem, values };
  return { ok: true, deleted: values.deleted, reason, values };
}

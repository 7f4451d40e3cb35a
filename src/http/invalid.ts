/**
 * The problem a failed validation answers, naming the field and why: 422
 * `invalid_field` unless the caller gives the field its own code, or a
 * refinement carries one in its `params`. The routes' validation middleware
 * (workers/middleware/validated.ts) throws it, and so does anything else
 * that checks input against a schema.
 */
import type { z } from "zod";
import type { LimitName } from "../limits.ts";
import { ProblemError, type ProblemStatus } from "./problem.ts";

/** How a field's failure is reported, when it has a code of its own. */
export interface FieldRefusal {
  status: ProblemStatus;
  code: string;
  limit?: LimitName;
}

function refusalOf(issue: z.core.$ZodIssue, fields: Record<string, FieldRefusal>): FieldRefusal | undefined {
  const params = (issue as { params?: Partial<FieldRefusal> }).params;
  if (params?.status && params.code) return { status: params.status, code: params.code };
  return fields[String(issue.path[0] ?? "")];
}

/** The problem for `issues`, the first of them named; `what` says what was being read. */
export function invalid(
  issues: z.core.$ZodIssue[],
  what: string,
  fields: Record<string, FieldRefusal> = {},
  extensions: Record<string, unknown> = {},
): ProblemError {
  const issue = issues[0]!;
  const field = issue.path.join(".") || "(body)";
  const own = refusalOf(issue, fields);
  if (own) {
    const title = own.status === 422 ? "Unprocessable Content" : "Bad Request";
    return new ProblemError({
      ...own,
      title,
      detail: `${what}: ${field}: ${issue.message}`,
      extensions: { field, ...extensions },
    });
  }
  return new ProblemError({
    status: 422,
    code: "invalid_field",
    detail: `${what}: ${field}: ${issue.message}`,
    extensions: {
      field,
      ...extensions,
      issues: issues.slice(0, 20).map((i) => ({ field: i.path.join("."), message: i.message })),
    },
  });
}

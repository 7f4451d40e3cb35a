/** Schema validation at the route: a failure names the field and why. */
import type { z } from "zod";
import { ProblemError } from "./problem.ts";

export function parseOr422<T extends z.ZodType>(schema: T, value: unknown, what: string): z.infer<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.join(".") || "(body)";
  throw new ProblemError({
    status: 422,
    code: "invalid_field",
    title: "Unprocessable Content",
    detail: `${what}: ${field}: ${issue.message}`,
    extensions: { field, issues: result.error.issues.slice(0, 20).map((i) => ({ field: i.path.join("."), message: i.message })) },
  });
}

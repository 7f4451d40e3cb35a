/**
 * What the read routes accept in a query or path, as zod schemas: the routes
 * validate with them, and a purge computes the cache key a URL would read
 * with the same ones (src/purge/canonical.ts), so the two can never differ.
 */
import { z } from "zod";
import { LIMITS } from "../limits.ts";
import { parseWaybackTimestamp } from "./wayback.ts";
import { parseAt } from "./timestamps.ts";

/** A count in a query: digits, 1..max, `fallback` when absent. */
function countParam(max: number, fallback: number) {
  return z
    .string()
    .regex(/^\d+$/, { message: "must be digits", abort: true })
    .transform(Number)
    .refine((n) => n >= 1 && n <= max, `must be 1..${max}`)
    .default(fallback);
}

export const atQuery = z.object({
  at: z
    .string()
    .transform(
      (s, ctx) =>
        parseAt(s) ??
        (ctx.addIssue({ code: "custom", message: `${s} is neither ISO-8601 nor YYYYMMDDHHMMSS` }), z.NEVER),
    )
    .optional(),
});

export const historyQuery = z.object({
  limit: countParam(LIMITS.history.maxPageSize, LIMITS.history.defaultPageSize),
  older: z
    .string()
    .regex(/^b\d+$/, "is not a cursor this API issued")
    .optional(),
  newer: z
    .string()
    .regex(/^a\d+$/, "is not a cursor this API issued")
    .optional(),
});

const MAX_ID_DIGITS = String(Number.MAX_SAFE_INTEGER);

/**
 * Whether digits without leading zeros name at most 2^53 − 1, compared as
 * text: no BigInt or Number of unchecked input, so no string can throw here
 * (zod 4 runs a refinement even after a failed regex unless the regex aborts).
 */
export function isSafeIdDigits(digits: string): boolean {
  return (
    /^[1-9]\d*$/.test(digits) &&
    (digits.length < MAX_ID_DIGITS.length || (digits.length === MAX_ID_DIGITS.length && digits <= MAX_ID_DIGITS))
  );
}

export const revisionParam = z.object({
  title: z.string(),
  revid: z
    .string()
    .regex(/^[1-9]\d*$/, { message: "is not a revision id", abort: true })
    .refine(isSafeIdDigits, {
      message: `revision ids go up to ${Number.MAX_SAFE_INTEGER}`,
      params: { status: 422, code: "revision_id_out_of_range" },
    })
    .transform(Number),
});

const mementoId = z
  .string()
  .regex(/^[1-9]\d{0,15}$/, { message: "is not a revision id", abort: true })
  .refine(isSafeIdDigits, `revision ids go up to ${Number.MAX_SAFE_INTEGER}`)
  .transform(Number);

/**
 * A TimeMap page: the oldest (no cursor), or the page after or before a memento (the ids its prev/next links carry).
 */
export const timemapQuery = z
  .object({ after: mementoId.optional(), before: mementoId.optional() })
  .refine((q) => q.after === undefined || q.before === undefined, {
    message: "give after or before, not both",
    path: ["before"],
  });

/** `/timemap/{format}/{title}`. */
export const timemapParam = z.object({ format: z.enum(["link", "json"]), title: z.string() });

/** `/web/{timestamp}/{title}`: 1 to 14 digits, padded down to the earliest instant (src/http/wayback.ts). */
export const waybackParam = z.object({
  title: z.string(),
  timestamp: z
    .string()
    .regex(/^\d{1,14}$/, "must be 1 to 14 digits: YYYY[MM[DD[hh[mm[ss]]]]]")
    .transform(
      (s, ctx) =>
        parseWaybackTimestamp(s) ??
        (ctx.addIssue({ code: "custom", message: `${s} names no instant (month, day or time out of range)` }), z.NEVER),
    ),
});

/**
 * `GET /page/{title}/export`, as Special:Export takes it: `offset` a time (ISO-8601 or
 * YYYYMMDDHHMMSS: the revisions after it, or before it with `dir=desc`) or the `a<n>` / `b<n>`
 * an export's `Link: rel="next"` names; `limit` 1..export.maxRevisions; `dir` asc or desc.
 */
export const exportQuery = z
  .object({
    offset: z
      .string()
      .transform((s, ctx) => {
        const cursor = /^([ab])(\d{1,15})$/.exec(s);
        if (cursor) return cursor[1] === "a" ? { after: Number(cursor[2]) } : { before: Number(cursor[2]) };
        const time = parseAt(s);
        if (time !== null) return { time };
        ctx.addIssue({
          code: "custom",
          message: `${s} is neither a time (ISO-8601, YYYYMMDDHHMMSS) nor an export cursor`,
        });
        return z.NEVER;
      })
      .optional(),
    limit: countParam(LIMITS.export.maxRevisions, LIMITS.export.maxRevisions),
    dir: z.enum(["asc", "desc"]).default("asc"),
  })
  .refine((q) => !q.offset || "time" in q.offset || "after" in q.offset === (q.dir === "asc"), {
    message: "an a<n> offset goes with dir=asc, a b<n> offset with dir=desc",
    path: ["offset"],
  });

/** `GET /api/pages`: `after` a page key from the previous answer's `next`; `limit` 1..export.pagesPerList. */
export const pageListQuery = z.object({
  after: z
    .string()
    .max(LIMITS.page.maxTitleBytes * 3)
    .default(""),
  limit: countParam(LIMITS.export.pagesPerList, LIMITS.export.pagesPerList),
});

/**
 * The `{from}...{to}` segment of a compare URL, parsed one way for the
 * route (workers/routes/browse/index.tsx) and for purges by URL
 * (src/purge/canonical.ts), so a URL the route answers has the cache key a
 * purge of that URL names.
 *
 * @example
 * compareRange.parse("10...12"); // { from: 10, to: 12 }
 */
import { z } from "zod";
import { revisionParam } from "../http/queries.ts";

const revisionId = revisionParam.shape.revid;

export const compareRange = z
  .string()
  .regex(/^[1-9]\d*\.\.\.[1-9]\d*$/, { message: "is not {from}...{to}, two revision ids", abort: true })
  .transform((s, ctx) => {
    const [from, to] = s.split("...").map((id) => revisionId.safeParse(id));
    if (from?.success && to?.success) return { from: from.data, to: to.data };
    ctx.addIssue({
      code: "custom",
      message: `revision ids go up to ${Number.MAX_SAFE_INTEGER}`,
      params: { status: 422, code: "revision_id_out_of_range" },
    });
    return z.NEVER;
  });

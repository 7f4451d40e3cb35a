/**
 * What a new revision must be to enter the archive, however it comes: the
 * write API's body (workers/routes/admin/write-routes.ts) and the
 * deployment's wiki follower (src/follow/worker-archive.ts) check each
 * revision against this one schema, so both refuse the same things with
 * the same reasons.
 *
 * @example
 * const checked = newRevisionSchema.safeParse(revision); // { success: false, error } names the field
 */
import { z } from "zod";
import { LIMITS } from "../limits.ts";
import { cacheTag } from "../purge/tag-syntax.ts";
import { CONTENT_MODELS, formatRefusal, isContentModel } from "../page/content-model.ts";
import { cleanName } from "../page/title.ts";

const revisionId = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const isoSecond = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

export const newRevisionSchema = z
  .object({
    id: revisionId,
    parentId: revisionId.nullable(),
    timestamp: z
      .string()
      .regex(isoSecond, "must be YYYY-MM-DDTHH:MM:SSZ")
      .refine(
        (s) => !Number.isNaN(Date.parse(s)) && new Date(s).toISOString().replace(".000Z", "Z") === s,
        "is not a real date and time",
      ),
    // A name as MediaWiki keeps one: directional controls stripped, invisible characters refused (src/page/title.ts).
    contributor: z
      .string()
      .max(LIMITS.page.maxContributorBytes)
      .transform((name, ctx) => {
        const clean = cleanName(name);
        if (clean.ok) return clean.value;
        ctx.addIssue({
          code: "custom",
          message: `the contributor's name ${clean.reason}`,
          params: { status: 422, code: "invalid_contributor" },
        });
        return z.NEVER;
      }),
    comment: z.string().max(LIMITS.page.maxCommentBytes),
    model: z.string().refine(isContentModel, `must be one of ${Object.keys(CONTENT_MODELS).join(", ")}`),
    format: z.string().max(64).optional(),
    text: z.string(),
    sha1: z
      .string()
      .regex(/^[0-9a-z]{31}$/, "must be a 31-digit base-36 SHA-1")
      .nullable()
      .optional(),
    tags: z
      .array(cacheTag)
      .max(LIMITS.page.maxTagsPerRevision, `at most ${LIMITS.page.maxTagsPerRevision} tags`)
      .optional(),
    // What its wiki hides (revision deletion): kept, and out of every public answer.
    hidden: z
      .object({ content: z.boolean().optional(), comment: z.boolean().optional(), contributor: z.boolean().optional() })
      .strict()
      .optional(),
    // The wiki hid the text before the archive first read it: stored without it (text "", hidden.content true).
    textMissing: z.boolean().optional(),
  })
  .superRefine((r, ctx) => {
    if (r.textMissing && (r.text !== "" || r.hidden?.content !== true))
      ctx.addIssue({
        code: "custom",
        path: ["textMissing"],
        message: `revision ${r.id}: a revision sent without its text has text "" and hidden.content true`,
        params: { status: 422, code: "text_missing_not_hidden" },
      });
    // The format decides nothing about how a revision is served, but a wrong one is refused, as MediaWiki does.
    const refusal = isContentModel(r.model) ? formatRefusal(r.model, r.format) : null;
    if (refusal)
      ctx.addIssue({
        code: "custom",
        path: ["format"],
        message: `revision ${r.id}: ${refusal}`,
        params: { status: 422, code: "format_not_allowed" },
      });
  });

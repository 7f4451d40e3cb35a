/**
 * The one reading of an answer's body as a value: what the origin wrote as
 * JSON (a history page, a time line, a memento's place, the memento index, a
 * comparison, or a problem) decoded and checked against its schema, so no
 * reader parses an answer with a cast. Written beside the origin, which
 * makes the bodies; a tier, a route or a middleware reads them through
 * here, whichever tier the answer came from.
 *
 * - `answerJson(kind, answer)`: a 200 answer's body as its kind's type; a
 *   body that is not what its kind says (a bug, never a client's doing)
 *   throws.
 * - `answerProblem(answer)`: a non-200 answer's problem fields, `{}` when its
 *   body is not a problem (the status alone then says what happened).
 *
 * @example
 * const through = await readThroughTiers(env, ctx, colo, { kind: "timeline", ref });
 * const timeline = answerJson("timeline", through.entry); // PageTimeline
 * timeline.latest?.id;
 */
import { z } from "zod";
import type { CompareAnswer } from "../compare/diff.ts";
import { errorMessage } from "../lib/errors.ts";
import type { MementoIndex, MementoInfo } from "../memento/types.ts";
import type { PageTimeline } from "../page/timeline.ts";
import type { HistoryEntry } from "../page/types.ts";
import type { Answer } from "./answer.ts";

/** A `history` answer's body: one page of the history, oldest cursor first (src/origin/render.ts). */
export interface HistoryAnswer {
  page: string;
  total: number;
  revisions: HistoryEntry[];
  cursors: { older: string | null; newer: string | null };
}

/** The JSON body of a 200 answer, by the kind of query it answers. */
export interface AnswerBodies {
  history: HistoryAnswer;
  timeline: PageTimeline;
  memento: MementoInfo;
  mementos: MementoIndex;
  compare: CompareAnswer;
}

export type JsonKind = keyof AnswerBodies;

// Objects are loose: a field a reader does not check is allowed.
const listed = z.looseObject({ id: z.number(), timestamp: z.string(), suppressed: z.boolean() });
const mark = z.looseObject({ id: z.number(), timestamp: z.string() });
const mementoRef = z.looseObject({ id: z.number(), ts: z.number() });
const side = z.looseObject({ id: z.number(), bytes: z.number(), timestamp: z.string().nullable() });

const SCHEMAS = {
  history: z.looseObject({
    page: z.string(),
    total: z.number(),
    revisions: z.array(listed),
    cursors: z.looseObject({ older: z.string().nullable(), newer: z.string().nullable() }),
  }),
  timeline: z.looseObject({
    title: z.string(),
    total: z.number(),
    latest: mark.nullable(),
    years: z.array(mark.extend({ year: z.number() })),
    moreYears: z.boolean(),
    place: z
      .looseObject({
        revision: listed,
        position: z.number(),
        effectiveTimestamp: z.string(),
        webAnswersIt: z.boolean(),
        prev: mark.nullable(),
        next: mark.nullable(),
      })
      .optional(),
  }),
  memento: z.looseObject({
    title: z.string(),
    self: mementoRef,
    suppressed: z.boolean(),
    first: mementoRef.nullable(),
    last: mementoRef.nullable(),
    prev: mementoRef.nullable(),
    next: mementoRef.nullable(),
  }),
  mementos: z.looseObject({
    title: z.string(),
    mementos: z.array(z.tuple([z.number(), z.number(), z.union([z.literal(0), z.literal(1)])])).nullable(),
  }),
  compare: z.looseObject({
    from: side,
    to: side,
    result: z.looseObject({ kind: z.enum(["diff", "too_big", "not_text"]) }),
  }),
} satisfies Record<JsonKind, z.ZodType>;

function parsed(body: Uint8Array): unknown {
  return JSON.parse(new TextDecoder().decode(body));
}

/** A 200 answer's body as its kind's type; throws when the body is not what the kind says. */
export function answerJson<K extends JsonKind>(kind: K, answer: Pick<Answer, "status" | "body">): AnswerBodies[K] {
  if (answer.status !== 200) throw new Error(`a ${kind} answer's body is JSON only at 200, not ${answer.status}`);
  let json: unknown;
  try {
    json = parsed(answer.body);
  } catch (err) {
    throw new Error(`a ${kind} answer's body is not JSON: ${errorMessage(err)}`);
  }
  const checked = SCHEMAS[kind].safeParse(json);
  if (!checked.success) throw new Error(`a ${kind} answer's body is not a ${kind}: ${z.prettifyError(checked.error)}`);
  // Checked to the fields every reader uses; the rest is the origin's own type, written by it alone. The
  // parsed value itself, not the schema's copy: its members keep their order, so a body rebuilt from it
  // (the history's links) is the origin's bytes plus what the route adds.
  return json as AnswerBodies[K];
}

/** An RFC 9457 problem's fields as an answer carries them; any other member is an extension, kept. */
const problemSchema = z.looseObject({
  type: z.string().optional(),
  status: z.number().optional(),
  title: z.string().optional(),
  detail: z.string().optional(),
  code: z.string().optional(),
});

export type AnswerProblem = z.output<typeof problemSchema>;

/** A non-200 answer's problem fields; `{}` when its body is not a problem (not JSON, or a field of the wrong type). */
export function answerProblem(answer: Pick<Answer, "body">): AnswerProblem {
  let json: unknown;
  try {
    json = parsed(answer.body);
  } catch {
    return {};
  }
  // The parsed object itself when it is a problem, so its members keep their order.
  return problemSchema.safeParse(json).success ? (json as AnswerProblem) : {};
}

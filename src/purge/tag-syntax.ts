/**
 * What a cache tag may be, wherever one comes in (a writer's revision tags,
 * a purge by tag): at most `purge.maxTagBytes` of UTF-8, no comma (the
 * `Cache-Tag` header is a comma-separated list), no control character (CR
 * and LF would split the header).
 */
import { z } from "zod";
import { LIMITS } from "../limits.ts";

/** A C0 control character or DEL: never in a tag, a purge URL or a prefix. */
export const CONTROL = /[\u0000-\u001f\u007f]/;

export const cacheTag = z
  .string()
  .min(1, "is empty")
  .refine((t) => !t.includes(","), "contains a comma (Cache-Tag is a comma-separated list)")
  .refine((t) => !CONTROL.test(t), "contains a control character such as CR or LF")
  .refine((t) => t.trim() === t, "has leading or trailing whitespace")
  .refine(
    (t) => new TextEncoder().encode(t).byteLength <= LIMITS.purge.maxTagBytes,
    `is longer than ${LIMITS.purge.maxTagBytes} bytes`,
  );

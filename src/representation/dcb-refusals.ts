/**
 * The (page, revision, dictionary) triples this isolate has been told have
 * no dcb answer (a dictionary outside the window, unknown, or too big), for
 * LIMITS.wire.dcbRefusalMemorySeconds: a client repeating one gets br
 * without the request going further. The tiers also keep the refusal for
 * TOPOLOGY.notFoundSeconds, so other isolates' repeats stop at the lower or
 * regional tier, never at the origin. Bounded: past
 * LIMITS.wire.dcbRefusalsRemembered the oldest are forgotten.
 *
 * @example
 * if (!dcbRefused(page, id, dictionary)) { …; if (refused) rememberDcbRefusal(page, id, dictionary); }
 */
import { LIMITS } from "../limits.ts";

const refused = new Map<string, number>();
const keyOf = (page: string, id: number, dictionary: string) => `${page}\n${id}\n${dictionary}`;

export function dcbRefused(page: string, id: number, dictionary: string, now = Date.now()): boolean {
  const key = keyOf(page, id, dictionary);
  const until = refused.get(key);
  if (until === undefined) return false;
  if (until > now) return true;
  refused.delete(key);
  return false;
}

export function rememberDcbRefusal(page: string, id: number, dictionary: string, now = Date.now()): void {
  const key = keyOf(page, id, dictionary);
  refused.delete(key);
  refused.set(key, now + LIMITS.wire.dcbRefusalMemorySeconds * 1000);
  while (refused.size > LIMITS.wire.dcbRefusalsRemembered) refused.delete(refused.keys().next().value!);
}

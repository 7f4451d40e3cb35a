/**
 * One running thing (a wiki, a Worker, a harness) for the calling test file:
 * started before its first test and stopped after its last, since starting
 * one takes seconds. The result stands for it and may be used only inside
 * tests; touched outside one, it says what was used too early.
 */
import { afterAll, beforeAll } from "vitest";

export function forThisFile<T extends { stop(): Promise<unknown> }>(
  what: string,
  start: () => Promise<T>,
  startTimeoutMs?: number,
): T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  }, startTimeoutMs);
  afterAll(async () => {
    await started?.stop();
  });
  return new Proxy({} as T, {
    get(_, key) {
      if (!started) throw new Error(`${what} is used outside a test: it starts in beforeAll`);
      return started[key as keyof T];
    },
  });
}

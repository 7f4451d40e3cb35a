/**
 * Purge ids as the benches follow them: `<queue>:<seq>`. A queue completes
 * its log in order, so waiting on each queue's last id waits on them all.
 */

function splitId(id: string): [string, number] {
  const at = id.lastIndexOf(":");
  return [id.slice(0, at), Number(id.slice(at + 1))];
}

/** The last purge id of each queue: once it is acknowledged, so is every earlier one of that queue. */
export function lastPerQueue(ids: readonly string[]): string[] {
  const last = new Map<string, { seq: number; id: string }>();
  for (const id of ids) {
    const [queue, seq] = splitId(id);
    if ((last.get(queue)?.seq ?? 0) < seq) last.set(queue, { seq, id });
  }
  return [...last.values()].map((l) => l.id);
}

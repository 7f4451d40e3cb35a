/**
 * Weighted rendezvous (highest-random-weight) hashing: every member scores
 * each key, the best score wins. Removing a member moves only the keys it
 * held, and a member of weight 2 receives twice the keys of weight 1.
 * Score = -weight / ln(u), u uniform in (0, 1) from a hash of (member, key),
 * the logarithmic method of Schindelhauer and Schomaker.
 */
function hash64(text: string): bigint {
  // FNV-1a 64, then a splitmix64 finaliser so nearby keys spread well.
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) {
    h ^= BigInt(text.charCodeAt(i));
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  h ^= h >> 30n;
  h = (h * 0xbf58476d1ce4e5b9n) & 0xffffffffffffffffn;
  h ^= h >> 27n;
  h = (h * 0x94d049bb133111ebn) & 0xffffffffffffffffn;
  return h ^ (h >> 31n);
}

function score(member: string, weight: number, key: string): number {
  // 53 high bits → (0, 1), never 0 so the log is finite.
  const u = (Number(hash64(`${member}\u0000${key}`) >> 11n) + 0.5) / 2 ** 53;
  return -weight / Math.log(u);
}

export function rendezvousPick<M extends { id: string; weight: number }>(members: readonly M[], key: string): M {
  let best: M | undefined;
  let bestScore = -Infinity;
  for (const m of members) {
    const s = score(m.id, m.weight, key);
    if (s > bestScore) {
      bestScore = s;
      best = m;
    }
  }
  if (!best) throw new Error("rendezvousPick: empty pool");
  return best;
}

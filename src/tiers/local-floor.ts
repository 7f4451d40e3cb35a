/**
 * Read-your-writes in the colo that took a write (DESIGN, purge ingest: "purge
 * the local tier"). The Cache API cannot list a page's mutable keys, so the
 * write records the page's new version here, and this isolate's lower tier
 * and its regional requests refuse anything older. Other colos notice within
 * the refresh interval.
 */
const floors = new Map<string, number>();
const MAX_PAGES = 10_000;

export function noteLocalWrite(colo: string, page: string, version: number): void {
  const key = `${colo}\u0000${page}`;
  floors.delete(key);
  floors.set(key, Math.max(version, floors.get(key) ?? 0));
  if (floors.size > MAX_PAGES) floors.delete(floors.keys().next().value!);
}

export function localFloor(colo: string, page: string): number {
  return floors.get(`${colo}\u0000${page}`) ?? 0;
}

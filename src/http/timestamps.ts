/** Parses `?at=`: ISO-8601 with a zone, or MediaWiki/Memento's 14-digit YYYYMMDDHHMMSS (UTC). */
export function parseAt(value: string): number | null {
  const digits = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(value);
  if (digits) {
    const [, y, mo, d, h, mi, s] = digits.map(Number) as [number, number, number, number, number, number, number];
    const ms = Date.UTC(y, mo - 1, d, h, mi, s);
    const back = new Date(ms);
    if (back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) return null;
    return Math.floor(ms / 1000);
  }
  if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2}))?$/.test(value)) return null;
  const ms = Date.parse(value.length === 10 ? `${value}T00:00:00Z` : value);
  return Number.isNaN(ms) ? null : Math.floor(ms / 1000);
}

/**
 * Memento datetimes (RFC 7089 §2.1.1): `Accept-Datetime` and
 * `Memento-Datetime` are RFC 1123 dates, always in GMT, as HTTP's
 * IMF-fixdate writes them (`Sun, 06 Nov 1994 08:49:37 GMT`). Datetimes
 * travel inside the archive as epoch seconds, the store's unit.
 *
 * @example
 * parseHttpDate("Wed, 01 Jan 2020 00:00:01 GMT"); // 1577836801
 * formatHttpDate(1577836801);                      // "Wed, 01 Jan 2020 00:00:01 GMT"
 * parseHttpDate("2020-01-01");                     // null: not an RFC 1123 date
 */
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"] as const;
const RFC1123 = new RegExp(
  String.raw`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{2}) (${MONTHS.join("|")}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$`,
);

/** Epoch seconds of an RFC 1123 date, or null if it is not one or names no real instant (31 Feb, 24:00). */
export function parseHttpDate(value: string): number | null {
  const m = RFC1123.exec(value.trim());
  if (!m) return null;
  const [day, year, hour, minute, second] = [m[1], m[3], m[4], m[5], m[6]].map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const month = MONTHS.indexOf(m[2] as (typeof MONTHS)[number]);
  // The weekday is not checked against the date: RFC 9110 §5.6.7 asks recipients to be lenient, and it adds nothing.
  return utcSeconds(year, month, day, hour, minute, second);
}

/** Epoch seconds of a UTC calendar time, or null if any field is out of range. */
export function utcSeconds(
  year: number,
  month0: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
): number | null {
  if (month0 < 0 || month0 > 11 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  const date = new Date(0);
  date.setUTCFullYear(year, month0, day);
  date.setUTCHours(hour, minute, second, 0);
  if (date.getUTCDate() !== day || date.getUTCMonth() !== month0) return null;
  return Math.floor(date.getTime() / 1000);
}

/** IMF-fixdate, the form `Memento-Datetime` and the `datetime` link attribute take. */
export function formatHttpDate(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toUTCString();
}

/** 14-digit `YYYYMMDDhhmmss`, the Wayback form of a datetime. */
export function formatWaybackTimestamp(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().replace(/[-:T]/g, "").slice(0, 14);
}

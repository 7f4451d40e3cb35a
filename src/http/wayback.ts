/**
 * Wayback-style timestamps (`/web/{timestamp}/{title}`): 1 to 14 digits of
 * `YYYY[MM[DD[hh[mm[ss]]]]]`. Missing digits fill to the earliest instant
 * the given ones can name, as the Wayback Machine and pywb pad down: `2013`
 * is 2013-01-01T00:00:00Z, `201306` is 2013-06-01, and a partial field
 * takes its lowest valid value (`20131` is October 2013, `2` is the year
 * 2000). Digits that name no instant (month 00 or 13, 31 June, hour 24)
 * are refused.
 *
 * @example
 * parseWaybackTimestamp("2013");           // 1356998400 (2013-01-01T00:00:00Z)
 * parseWaybackTimestamp("20130631");       // null: June has 30 days
 */
import { utcSeconds } from "./datetime.ts";

/** Each field's width and lowest value, in order. */
const FIELDS = [
  { width: 4, min: 0 },
  { width: 2, min: 1 },
  { width: 2, min: 1 },
  { width: 2, min: 0 },
  { width: 2, min: 0 },
  { width: 2, min: 0 },
] as const;

export const WAYBACK_TIMESTAMP = /^\d{1,14}$/;

/** Epoch seconds of the earliest instant the timestamp names, or null if it names none. */
export function parseWaybackTimestamp(digits: string): number | null {
  if (!WAYBACK_TIMESTAMP.test(digits)) return null;
  const values: number[] = [];
  let at = 0;
  for (const { width, min } of FIELDS) {
    // A partial field is filled with zeros, then raised to the field's lowest value (month "0" → 01, "1" → 10).
    const given = digits.slice(at, at + width);
    at += width;
    values.push(given.length === width ? Number(given) : Math.max(min, Number(given.padEnd(width, "0"))));
  }
  const [year, month, day, hour, minute, second] = values as [number, number, number, number, number, number];
  return utcSeconds(year, month - 1, day, hour, minute, second);
}

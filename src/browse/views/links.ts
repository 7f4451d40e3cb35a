/** The URLs the browse pages link to, built in one place from a page key. */
import { titleSegment } from "../../page/page-ref.ts";

export const titleOf = (key: string) => key.replace(/_/g, " ");
export const pageUrl = (key: string) => `/page/${titleSegment(key)}`;
export const revisionUrl = (key: string, id: number) => `${pageUrl(key)}/${id}`;
export const historyUrl = (key: string) => `${pageUrl(key)}/history`;
export const compareUrl = (key: string, from: number, to: number) => `${pageUrl(key)}/compare/${from}...${to}`;
export const timemapUrl = (key: string, format: "link" | "json") => `/timemap/${format}/${titleSegment(key)}`;
/**
 * The revision viewer, for people: a revision with its date, neighbours and content shown safely; without `id`, the
 * latest.
 */
export const viewUrl = (key: string, id?: number) => `/view/${titleSegment(key)}${id === undefined ? "" : `/${id}`}`;
/** The Wayback-style URL of the page as it was at a time (ISO-8601 UTC): the revision current then. */
export const webUrl = (key: string, timestamp: string) =>
  `/web/${timestamp.replace(/[-:TZ]/g, "").slice(0, 14)}/${titleSegment(key)}`;

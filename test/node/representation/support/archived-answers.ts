/**
 * Every answer of a local archive that carries a revision's archived bytes,
 * fetched without following redirects, each checked by the caller's
 * `expectPolicy` (what such an answer must say to a browser): the revision
 * by id as identity, HEAD, a Range, br, gzip, dcb against an earlier
 * revision (by id and as the latest) and a 304; the page's latest and its
 * `?at=`; the targets of `/web/` and of the TimeGate; and a suppressed
 * revision's 410.
 */
import { expect } from "vitest";

export interface ArchivedAnswers {
  /** The archive's origin, e.g. http://127.0.0.1:8787. */
  base: string;
  /** A page whose latest revision is `id`, with an earlier revision `draftId`; both from before 2021-06-01. */
  page: string;
  id: number;
  draftId: number;
  /** A suppressed revision. */
  gone: { page: string; id: number };
  expectPolicy(headers: Headers, what: string): void;
}

/** Fetches and checks them all; gives the revision's identity body. */
export async function expectEveryArchivedAnswer(o: ArchivedAnswers): Promise<Uint8Array> {
  const byId = `${o.base}/page/${o.page}/${o.id}`;
  const latest = `${o.base}/page/${o.page}`;
  const get = async (what: string, url: string, headers: Record<string, string>, status: number, method = "GET") => {
    const res = await fetch(url, { method, headers, redirect: "manual" });
    const body = new Uint8Array(await res.arrayBuffer());
    expect(res.status, what).toBe(status);
    o.expectPolicy(res.headers, what);
    return { res, body };
  };
  const identity = await get("identity", byId, { "accept-encoding": "identity" }, 200);
  expect(identity.res.headers.get("content-type")).toBe("text/html; charset=utf-8");
  await get("latest", latest, {}, 200);
  await get("?at=", `${latest}?at=2021-06-01T00:00:00Z`, {}, 200);
  for (const [what, url, headers] of [
    ["/web/", `${o.base}/web/20210601000000/${o.page}`, {}],
    ["the TimeGate", latest, { "accept-datetime": "Tue, 01 Jun 2021 00:00:00 GMT" }],
  ] as const) {
    const redirect = await fetch(url, { headers, redirect: "manual" });
    expect(redirect.status, what).toBe(302);
    await get(`${what}'s target`, new URL(redirect.headers.get("location")!, o.base).toString(), {}, 200);
  }
  await get("HEAD", byId, {}, 200, "HEAD");
  const range = await get("Range", byId, { "accept-encoding": "identity", range: "bytes=0-99" }, 206);
  expect(range.body.byteLength).toBe(100);
  for (const coding of ["br", "gzip"]) {
    const coded = await get(coding, byId, { "accept-encoding": coding }, 200);
    expect(coded.res.headers.get("content-encoding"), coding).toBe(coding);
  }
  const draft = new Uint8Array(
    await (await fetch(`${latest}/${o.draftId}`, { headers: { "accept-encoding": "identity" } })).arrayBuffer(),
  );
  const dictionary = `:${Buffer.from(await crypto.subtle.digest("SHA-256", draft)).toString("base64")}:`;
  for (const url of [byId, latest]) {
    const dcb = await get(
      `dcb (${url})`,
      url,
      { "accept-encoding": "gzip, br, dcb", "available-dictionary": dictionary },
      200,
    );
    expect(dcb.res.headers.get("content-encoding")).toBe("dcb");
  }
  const etag = identity.res.headers.get("etag");
  expect(etag).toBeTruthy();
  await get("304", byId, { "accept-encoding": "identity", "if-none-match": etag! }, 304);
  await get("410 (suppressed)", `${o.base}/page/${o.gone.page}/${o.gone.id}`, {}, 410);
  return identity.body;
}

/**
 * A local archive's API as its operator calls it: JSON with the Worker's
 * token, and a page's revisions written through the write API.
 */
import { expect } from "vitest";

interface Archive {
  url: string;
  token: string;
}

export function api(archive: Archive, path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${archive.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${archive.token}`, "content-type": "application/json", ...init.headers },
  });
}

/** Writes `revisions` to page `title`; they must all be new (201). */
export async function write(archive: Archive, title: string, revisions: object[]): Promise<void> {
  const res = await api(archive, `/api/pages/${encodeURIComponent(title)}/revisions`, {
    method: "POST",
    body: JSON.stringify({ revisions }),
  });
  expect(res.status, `writing ${title}: ${await res.clone().text()}`).toBe(201);
}

/**
 * Drives the Worker the way a client would, through its own fetch handler.
 * Calls the Hono app directly: the pool's `exports.default.fetch` slows down
 * with every request a test file makes (measured: 0.1 ms per /healthz at
 * first, 115 ms after 600 calls), which the app itself does not.
 */
import { createExecutionContext, env } from "cloudflare:test";
import "../../../src/codec/install-worker.ts";
import { app } from "../../../workers/app.ts";
import type { NewRevision } from "../../../src/page/types.ts";

export const TOKEN = "test-write-token-5c1f9a7e3b8d2f60a4c9e1b7";
const ORIGIN = "http://archive.test";

export function request(path: string, init: RequestInit = {}): Promise<Response> {
  // Background work (waitUntil) runs on, unawaited, as it does after a real response.
  return Promise.resolve(
    app.fetch(new Request(`${ORIGIN}${path}`, { redirect: "manual", ...init }), env, createExecutionContext()),
  );
}

/** Appends revisions; `colo` sends the write through that simulated data centre. */
export function append(key: string, revisions: NewRevision[], token = TOKEN, colo?: string): Promise<Response> {
  return request(`/api/pages/${encodeURIComponent(key)}/revisions`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      ...(colo ? { "x-palimpsest-colo": colo } : {}),
    },
    body: JSON.stringify({ revisions }),
  });
}

export async function appendOk(key: string, revisions: NewRevision[]): Promise<void> {
  const res = await append(key, revisions);
  if (res.status !== 201 && res.status !== 200)
    throw new Error(`append ${key} failed: ${res.status} ${await res.text()}`);
}

/** A linear history of small distinct texts, ids firstId.., one second apart. */
export function linearHistory(
  count: number,
  firstId = 1,
  text = (i: number) => `== Revision ${i} ==\nBody line ${i} of the page.\n`,
): NewRevision[] {
  return Array.from({ length: count }, (_, i) => ({
    id: firstId + i,
    parentId: i === 0 ? null : firstId + i - 1,
    timestamp: new Date(Date.UTC(2020, 0, 1) + i * 1000).toISOString().replace(".000Z", "Z"),
    contributor: `Editor ${i % 7}`,
    comment: `edit ${i}`,
    model: "wikitext" as const,
    text: text(i),
  }));
}

export async function latestBody(key: string): Promise<string> {
  const res = await request(`/page/${key}`);
  if (res.status !== 200) throw new Error(`GET /page/${key}: ${res.status} ${await res.text()}`);
  return res.text();
}

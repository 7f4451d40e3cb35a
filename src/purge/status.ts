/**
 * A purge as an operator sees it: every tier that must apply it, which have
 * acknowledged and when, and whether it is complete. Waiting polls the
 * owning queue, backing off, up to the asked-for time.
 */
import { parsePurgeId, purgeQueueOf } from "../bindings.ts";
import { topologyOf } from "../config/topology.ts";
import { ProblemError } from "../http/problem.ts";
import { LIMITS } from "../limits.ts";
import type { Scope } from "../http/tokens.ts";
import { backoffMs, sleep } from "../lib/backoff.ts";
import type { PurgeEvent } from "./events.ts";
import type { PurgeStatus } from "./queue-store.ts";

/** Whether every tier has acknowledged a purge: the one word the API, the dashboard and its live script show. */
export type PurgeState = "pending" | "complete";

/** A purge still in the retained log (an older one is 404): its event, and when it was logged, always known. */
export type PurgeView = PurgeStatus & { event: PurgeEvent; createdAt: number; state: PurgeState };

type ParsedId = ReturnType<typeof parsePurgeId>;

function parsedId(env: Env, id: string): ParsedId {
  const parsed = parsePurgeId(id, topologyOf(env));
  if (!parsed.ok && parsed.reason === "malformed") {
    throw new ProblemError({
      status: 400,
      code: "invalid_purge_id",
      detail: `${id.slice(0, 80)} is not a purge id (<queue>:<seq>)`,
    });
  }
  return parsed;
}

async function once(env: Env, id: string, parsed: ParsedId): Promise<PurgeView> {
  const status = parsed.ok ? await purgeQueueOf(env, parsed.queue).status(parsed.seq) : null;
  if (!status?.event)
    throw new ProblemError({
      status: 404,
      code: "purge_not_found",
      detail: `no purge ${id} in the retained log`,
    });
  return {
    ...status,
    event: status.event,
    createdAt: status.event.createdAt,
    state: status.acknowledged ? "complete" : "pending",
  };
}

/**
 * The purge's status, once complete or after `waitSeconds`, whichever comes
 * first. While it waits it asks the queue only whether the purge has
 * completed, one indexed read, not every tier's row: waiters must not slow
 * down the deliveries they wait for.
 */
export async function purgeView(env: Env, id: string, waitSeconds = 0): Promise<PurgeView> {
  const until = Date.now() + Math.min(waitSeconds, LIMITS.purge.maxWaitSeconds) * 1000;
  const parsed = parsedId(env, id);
  const view = await once(env, id, parsed);
  if (!parsed.ok || view.state === "complete" || Date.now() >= until) return view;
  const queue = purgeQueueOf(env, parsed.queue);
  for (let attempt = 0; Date.now() < until; attempt++) {
    await sleep(Math.min(backoffMs(attempt, 50, 500), Math.max(0, until - Date.now())));
    if ((await queue.completedAt([parsed.seq]))[0] !== null) break;
  }
  return once(env, id, parsed);
}

/**
 * The one rule for who sees a purge, on the API and the dashboard alike:
 * an operator's purge belongs to the audit log (who purged what), which
 * only the purge scope reads; a write's purge, which names nothing but the
 * page written, any holder of write or purge may follow.
 */
export function mayView(view: PurgeView, scopes: readonly Scope[]): boolean {
  return scopes.includes("purge") || !view.event?.operator;
}

export function auditForbidden(name: string): ProblemError {
  return new ProblemError({
    status: 403,
    code: "forbidden",
    detail: `operators' purges are the audit log, which needs the purge scope; ${name} does not carry it`,
    extensions: { scope: ["purge"] },
  });
}

/** The purge's status, or 403 if `scopes` may not see it (see {@link mayView}). */
export async function purgeViewFor(
  env: Env,
  id: string,
  who: { name: string; scopes: readonly Scope[] },
  waitSeconds = 0,
): Promise<PurgeView> {
  // Checked before any wait: a refused caller never holds a request open.
  const view = await purgeView(env, id, 0);
  if (!mayView(view, who.scopes)) throw auditForbidden(who.name);
  return waitSeconds > 0 && view.state !== "complete" ? purgeView(env, id, waitSeconds) : view;
}

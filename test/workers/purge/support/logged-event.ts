/**
 * A purge request as its region's first queue logs it: at `seq`, with the
 * id GET /api/purges/{id} takes, created at time 0. Plain TypeScript, for
 * workerd and Node tests alike.
 */
import type { PurgeEvent, PurgeRequest } from "../../../../src/purge/events.ts";

export const loggedEvent = (request: PurgeRequest, seq: number): PurgeEvent => ({
  ...request,
  seq,
  id: `${request.region}-q0:${seq}`,
  queue: `${request.region}-q0`,
  createdAt: 0,
});

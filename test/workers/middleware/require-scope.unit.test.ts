/** workers/middleware/require-scope.ts: 401 without a usable token, 403 for a token without the scope, the principal set for one with it. */
import { env } from "cloudflare:test";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { onError } from "../../../src/http/problem.ts";
import { optionalScope, requireScope, type AuthVariables } from "../../../workers/middleware/require-scope.ts";
import { bearer, TOKENS } from "../support/tokens.ts";

const app = new Hono<{ Bindings: Env; Variables: AuthVariables }>()
  .use(requireScope("write"))
  .get("/", (c) => c.text(c.get("principal").name))
  .onError(onError);
const codeOf = async (res: Response) => (await res.json<{ code: string }>()).code;

describe("requireScope", () => {
  it("answers 401 unauthenticated without a token and token_expired for an expired one", async () => {
    const none = await app.request("/", {}, env);
    expect(none.status).toBe(401);
    expect(await codeOf(none)).toBe("unauthenticated");
    const expired = await app.request("/", { headers: bearer(TOKENS.expired) }, env);
    expect(expired.status).toBe(401);
    expect(await codeOf(expired)).toBe("token_expired");
  });

  it("answers 403 forbidden for a valid token without the scope", async () => {
    const res = await app.request("/", { headers: bearer(TOKENS.purge) }, env);
    expect(res.status).toBe(403);
    expect(await codeOf(res)).toBe("forbidden");
  });

  it("sets the principal for a token carrying the scope", async () => {
    const res = await app.request("/", { headers: bearer(TOKENS.operator) }, env);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("test-operator");
  });
});

describe("optionalScope", () => {
  const open = new Hono<{ Bindings: Env; Variables: Partial<AuthVariables> }>()
    .use(optionalScope("backup"))
    .get("/", (c) => c.text(c.get("principal")?.name ?? "(public)"))
    .onError(onError);

  it.each([
    { asker: "no credentials, as the public's", headers: {}, status: 200, said: "(public)" },
    { asker: "an unknown token", headers: bearer("not-a-token"), status: 401, said: "invalid_token" },
    { asker: "a token without the scope", headers: bearer(TOKENS.write), status: 403, said: "forbidden" },
    {
      asker: "a token with the scope, as its principal",
      headers: bearer(TOKENS.backup),
      status: 200,
      said: "test-backup",
    },
  ])("answers $asker with $status", async ({ headers, status, said }) => {
    const res = await open.request("/", { headers }, env);
    expect(res.status).toBe(status);
    expect(status === 200 ? await res.text() : await codeOf(res)).toBe(said);
  });
});

/** The tokens vitest.config.ts gives the workerd tests, by what they can do. */
export const TOKENS = {
  /** write-scope only (WRITE_TOKENS). */
  write: "test-write-token",
  /** write and purge: the operator of the tests. */
  operator: "test-operator-token",
  /** purge only. */
  purge: "test-purge-token",
  /** purge, but expired in 2020. */
  expired: "test-expired-token",
} as const;

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

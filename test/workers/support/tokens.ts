/** The tokens vitest.config.ts gives the workerd tests, by what they can do. */
export const TOKENS = {
  /** write-scope only (`test-writer`). */
  write: "test-write-token-5c1f9a7e3b8d2f60a4c9e1b7",
  /** write and purge: the operator of the tests. */
  operator: "test-operator-token-8e2d4b6f0a1c3e5d7f9b2a4c",
  /** purge only. */
  purge: "test-purge-token-3a7c9e1f5b2d8a4c6e0f1b3d",
  /** backup only: exports with suppressed revisions' content (`test-backup`). */
  backup: "test-backup-token-6d4f2b8e0c1a3f5e7b9d1c2a",
  /** purge, but expired in 2020. */
  expired: "test-expired-token-9b1d3f5a7c2e4b6d8f0a1c3e",
} as const;

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/**
 * What a thrown value says, for a log line, a stored reason or the message
 * of an error that wraps it: an Error's message (or any object's string
 * `message`, as an error that crossed an RPC or realm boundary may be),
 * anything else as a string. The one place an unknown error becomes text.
 *
 * @example
 * } catch (err) {
 *   console.warn("copy not kept", key, errorMessage(err));
 * }
 */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  const message = (err as { message?: unknown } | null | undefined)?.message;
  return typeof message === "string" ? message : String(err);
}

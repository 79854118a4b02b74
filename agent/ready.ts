/**
 * `--ready-timeout`: OPA waits this long for its plugins (bundles, discovery) to report ready
 * before it serves, and gives up with an error when they do not. regent's agent waits on the
 * same way on whatever becomes ready after start (nothing, with local files: ready at once).
 */

/** Thrown when `ready` has not settled within the timeout. */
export class ReadyTimeoutError extends Error {}

/**
 * Resolves when every promise in `waiting` resolves; rejects with {@link ReadyTimeoutError} after
 * `timeoutSeconds` (0 or less: no limit, as OPA's flag).
 */
export async function waitUntilReady(
  waiting: readonly Promise<unknown>[],
  timeoutSeconds: number,
): Promise<void> {
  const all = Promise.all(waiting).then(() => undefined)
  if (timeoutSeconds <= 0) return all
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new ReadyTimeoutError(`plugins were not ready within --ready-timeout ${timeoutSeconds}s`)),
      timeoutSeconds * 1000,
    )
  })
  try {
    await Promise.race([all, timeout])
  } finally {
    clearTimeout(timer)
  }
}

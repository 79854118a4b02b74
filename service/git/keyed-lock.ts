/**
 * In-process serialisation by key: callers with the same key run one after another, in arrival
 * order; different keys run side by side. Used so two fetches of one mirror, or two commits to one
 * branch, never interleave.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>()

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve()
    let release!: () => void
    const mine = new Promise<void>((resolve) => {
      release = resolve
    })
    const tail = previous.then(() => mine)
    this.tails.set(key, tail)
    await previous
    try {
      return await fn()
    } finally {
      release()
      // Forget the key once nobody queues behind us, so the map does not grow with every branch.
      if (this.tails.get(key) === tail) this.tails.delete(key)
    }
  }
}

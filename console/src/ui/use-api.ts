/**
 * Loading an API answer into a view: its data, its error and a reload; the request is aborted
 * when the view goes away or its inputs change, so a slow answer never overwrites a newer one.
 */
import { useCallback, useEffect, useState } from 'preact/hooks'
import { ApiError } from '../api/client'

export interface Loaded<T> {
  data: T | undefined
  error: ApiError | Error | undefined
  loading: boolean
  reload: () => void
}

export function useApi<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true })
  const [generation, setGeneration] = useState(0)
  const reload = useCallback(() => setGeneration((g) => g + 1), [])
  useEffect(() => {
    const controller = new AbortController()
    setState((s) => ({ ...s, loading: true }))
    load(controller.signal).then(
      (data) => !controller.signal.aborted && setState({ data, loading: false }),
      (error: Error) =>
        !controller.signal.aborted && setState((s) => ({ data: s.data, error, loading: false })),
    )
    return () => controller.abort()
  }, [...deps, generation])
  return { data: state.data, error: state.error, loading: state.loading, reload }
}

/** Calls `fn` every `ms` while the page is visible (live views). */
export function useInterval(fn: () => void, ms: number | undefined): void {
  useEffect(() => {
    if (ms === undefined) return
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') fn()
    }, ms)
    return () => clearInterval(timer)
  }, [fn, ms])
}

export { ApiError }

/**
 * The decisions list: the search's pages (older with the page's cursor, newer back through the
 * pages seen) and the live tail. The tail asks every 2 s for what came after the newest decision
 * shown (`order=ASC` from its cursor, with the same filters), puts it on top and keeps at most
 * MAX_ITEMS; it runs only on the first page, while the range ends now, and not while paused.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import type { ApiClient, Query } from '../../api/client'
import { type DecisionItem, searchDecisions } from '../../api/decisions'

export const TAIL_MS = 2000
/** Most decisions the list holds; the oldest go when the tail brings more. */
export const MAX_ITEMS = 500
// Pages one tail tick may fetch when decisions arrive faster than a page per tick.
const MAX_TAIL_PAGES = 5

export interface DecisionList {
  items: DecisionItem[]
  /** Continue with older decisions from here (undefined: none older). */
  older: string | undefined
  partial: boolean
  error: Error | undefined
  /** The last tail request's failure (the tail keeps asking; cleared by the next answer). */
  tailError: Error | undefined
  loading: boolean
  /** Cursors of the newer pages, the first page's as undefined. */
  newer: Array<string | undefined>
  showOlder: () => void
  showNewer: () => void
  live: boolean
  setLive: (live: boolean) => void
  /** Cursors of decisions the tail brought since the search. */
  fresh: ReadonlySet<string>
  /** Counts tail deliveries that brought something (the chart reloads on it). */
  arrivals: number
  now: number
}

export function useDecisionList(api: ApiClient, query: Query, tailable: boolean): DecisionList {
  const key = JSON.stringify(query)
  const [items, setItems] = useState<DecisionItem[]>([])
  const [older, setOlder] = useState<string | undefined>()
  const [partial, setPartial] = useState(false)
  const [error, setError] = useState<Error | undefined>()
  const [tailError, setTailError] = useState<Error | undefined>()
  const [loading, setLoading] = useState(true)
  const [page, setPage] = useState<string | undefined>(undefined)
  const [newer, setNewer] = useState<Array<string | undefined>>([])
  const [live, setLive] = useState(true)
  const [fresh, setFresh] = useState<ReadonlySet<string>>(new Set())
  const [arrivals, setArrivals] = useState(0)
  const [now, setNow] = useState(Date.now())
  const itemsRef = useRef(items)
  itemsRef.current = items

  // A new search starts at the first page.
  // Dependencies: `key` stands for `query`'s content.
  useEffect(() => {
    setPage(undefined)
    setNewer([])
    setFresh(new Set())
  }, [key])

  // Dependencies: `key` stands for `query`'s content.
  useEffect(() => {
    const controller = new AbortController()
    setLoading(true)
    searchDecisions(api, query, { cursor: page }, controller.signal).then(
      (answer) => {
        if (controller.signal.aborted) return
        setItems(answer.items)
        setOlder(answer.cursor)
        setPartial(answer.partial === true)
        setError(undefined)
        setLoading(false)
        setNow(Date.now())
      },
      (e: Error) => {
        if (controller.signal.aborted) return
        setError(e)
        setLoading(false)
      },
    )
    return () => controller.abort()
  }, [api, key, page])

  const tailing = live && tailable && page === undefined && !loading && error === undefined
  // Dependencies: `key` stands for `query`'s content.
  useEffect(() => {
    if (!tailing) return
    const controller = new AbortController()
    let running = false
    const tick = async () => {
      if (running || document.visibilityState !== 'visible') return
      running = true
      try {
        const arrived: DecisionItem[] = []
        let after = itemsRef.current[0]?.cursor
        for (let i = 0; i < MAX_TAIL_PAGES; i++) {
          const first = after === undefined
          const answer = await searchDecisions(
            api,
            query,
            after ? { cursor: after, order: 'ASC' } : {},
            controller.signal,
          )
          // Without a newest decision the first page (newest first) is the tail's answer.
          const batch = after ? answer.items : [...answer.items].reverse()
          arrived.push(...batch)
          after = batch.at(-1)?.cursor ?? after
          if (first || !answer.cursor || answer.items.length === 0) break
        }
        if (controller.signal.aborted) return
        setNow(Date.now())
        setTailError(undefined)
        if (arrived.length === 0) return
        const known = new Set(itemsRef.current.map((d) => d.cursor))
        const added = arrived.filter((d) => !known.has(d.cursor)).reverse()
        if (added.length === 0) return
        const next = [...added, ...itemsRef.current]
        if (next.length > MAX_ITEMS) setOlder(next[MAX_ITEMS - 1]!.cursor)
        setItems(next.slice(0, MAX_ITEMS))
        setFresh((f) => new Set([...f, ...added.map((d) => d.cursor)]))
        setArrivals((n) => n + 1)
      } catch (e) {
        if (!controller.signal.aborted) setTailError(e as Error)
      } finally {
        running = false
      }
    }
    const timer = setInterval(tick, TAIL_MS)
    return () => {
      clearInterval(timer)
      controller.abort()
    }
  }, [api, key, tailing])

  const showOlder = useCallback(() => {
    if (!older) return
    setNewer((n) => [...n, page])
    setPage(older)
  }, [older, page])
  const showNewer = useCallback(() => {
    if (newer.length === 0) return
    setPage(newer.at(-1))
    setNewer(newer.slice(0, -1))
  }, [newer])

  return {
    items,
    older,
    partial,
    error,
    tailError,
    loading,
    newer,
    showOlder,
    showNewer,
    live,
    setLive,
    fresh,
    arrivals,
    now,
  }
}

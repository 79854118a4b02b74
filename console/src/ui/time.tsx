/** Times as people read them: "3 min ago", with the exact instant in the tooltip. */

/** `12 s`, `4 min`, `2 h`, `3 d` for a duration in milliseconds. */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000))
  if (s < 60) return `${s} s`
  const m = Math.floor(s / 60)
  if (m < 60) return `${m} min`
  const h = Math.floor(m / 60)
  if (h < 48) return `${h} h`
  return `${Math.floor(h / 24)} d`
}

export function TimeAgo({ at, now = Date.now() }: { at: string | undefined; now?: number }) {
  if (!at) return <span class="muted">never</span>
  const t = Date.parse(at)
  if (Number.isNaN(t)) return <span>{at}</span>
  return (
    <time dateTime={at} title={new Date(t).toISOString()}>
      {formatAge(now - t)} ago
    </time>
  )
}

/**
 * Decisions per time bucket, one line per result kind (uPlot, bundled), with the totals written
 * out beside it: the canvas is a picture, the numbers are text a screen reader and a test read.
 * Colours come from the theme's CSS variables, so the chart is redrawn when the theme changes.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'
import type { DecisionCounts } from '../../api/decisions'
import { formatAge } from '../../ui/time'

const KIND_COLOURS: Record<string, string> = {
  ALLOWED: '--good',
  DENIED: '--bad',
  ERROR: '--warn',
  UNKNOWN: '--muted',
  ADVICE: '--accent',
}
const HEIGHT = 180

export function CountsChart({ counts, note }: { counts: DecisionCounts; note?: string }) {
  const box = useRef<HTMLDivElement>(null)
  const theme = useThemeGeneration()
  const kinds = counts.kinds.filter((k) => k !== 'ADVICE' || (counts.totals[k] ?? 0) > 0)
  const bucket = formatAge(counts.bucket_seconds * 1000)

  useEffect(() => {
    const el = box.current
    if (!el) return
    const colour = resolvedColour(el)
    const axis = {
      stroke: colour('--muted'),
      grid: { stroke: colour('--line'), width: 1 },
      ticks: { show: false },
    }
    const xs = counts.buckets.map((b) => Date.parse(b.start_time) / 1000)
    const data: uPlot.AlignedData = [xs, ...kinds.map((k) => counts.buckets.map((b) => b.counts[k] ?? 0))]
    const plot = new uPlot(
      {
        width: Math.max(200, el.clientWidth),
        height: HEIGHT,
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        scales: { y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
        axes: [axis, { ...axis, size: 40 }],
        series: [
          {},
          ...kinds.map((k) => ({
            label: k.toLowerCase(),
            stroke: colour(KIND_COLOURS[k] ?? '--fg'),
            width: 2,
            points: { show: counts.buckets.length <= 60 },
          })),
        ],
      },
      data,
      el,
    )
    const resize = new ResizeObserver(() =>
      plot.setSize({ width: Math.max(200, el.clientWidth), height: HEIGHT }),
    )
    resize.observe(el)
    return () => {
      resize.disconnect()
      plot.destroy()
    }
  }, [counts, theme, kinds.join()])

  const summary = `${counts.total} decisions, per ${bucket}: ${kinds
    .map((k) => `${counts.totals[k] ?? 0} ${k.toLowerCase()}`)
    .join(', ')}`
  return (
    <figure class="counts-chart">
      <figcaption>
        Decisions per {bucket}, {new Date(counts.start_time).toLocaleString()} to{' '}
        {new Date(counts.end_time).toLocaleString()}
      </figcaption>
      <div class="chart-box" ref={box} role="img" aria-label={summary} />
      <dl class="totals" aria-label="Totals">
        <div>
          <dt>total</dt>
          <dd data-kind="TOTAL">{counts.total}</dd>
        </div>
        {kinds.map((k) => (
          <div key={k} class={`kind-${k.toLowerCase()}`}>
            <dt>{k.toLowerCase()}</dt>
            <dd data-kind={k}>{counts.totals[k] ?? 0}</dd>
          </div>
        ))}
      </dl>
      {note && <p class="muted note">{note}</p>}
    </figure>
  )
}

/**
 * A theme colour as the canvas needs it (`rgb(…)`): the palette's variables hold
 * `light-dark(…, …)`, which only the style engine resolves, so each is read back through `el`.
 */
function resolvedColour(el: HTMLElement): (name: string) => string {
  return (name) => {
    const saved = el.style.color
    el.style.color = `var(${name})`
    const value = getComputedStyle(el).color
    el.style.color = saved
    return value || 'gray'
  }
}

/** Changes when the theme does (the switch sets `data-theme`; the system's scheme may change). */
function useThemeGeneration(): number {
  const [generation, setGeneration] = useState(0)
  useEffect(() => {
    const bump = () => setGeneration((g) => g + 1)
    const observer = new MutationObserver(bump)
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] })
    const media = matchMedia('(prefers-color-scheme: dark)')
    media.addEventListener('change', bump)
    return () => {
      observer.disconnect()
      media.removeEventListener('change', bump)
    }
  }, [])
  return generation
}

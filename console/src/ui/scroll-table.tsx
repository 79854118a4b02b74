/**
 * A table that scrolls sideways on a narrow screen: a named region that takes focus, so the
 * hidden columns can be scrolled to with the keyboard (WCAG 2.1.1; axe `scrollable-region-focusable`).
 */
import type { ComponentChildren } from 'preact'
import './cards.css'

export function ScrollTable({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (WCAG 2.1.1).
    <section class="table-wrap" aria-label={label} tabIndex={0}>
      {children}
    </section>
  )
}

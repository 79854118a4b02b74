/**
 * JSON as an indented, selectable block (inputs, results, configurations). A named region that
 * takes focus, so a long block can be scrolled with the keyboard.
 */
export function JsonView({ value, label }: { value: unknown; label: string }) {
  const text = value === undefined ? 'undefined' : JSON.stringify(value, null, 2)
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (WCAG 2.1.1).
    <section class="json" aria-label={label} tabIndex={0}>
      <pre>{text}</pre>
    </section>
  )
}

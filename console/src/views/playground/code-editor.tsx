/**
 * A monospace textarea with line numbers beside it (the numbers scroll with the text), so an
 * error's `row` can be found by eye. Tab keeps moving focus (keyboard users must be able to leave
 * the field); Rego does not need typed tabs.
 */
import type { Ref } from 'preact'
import { useRef } from 'preact/hooks'

interface Props {
  id: string
  value: string
  onInput: (value: string) => void
  rows?: number
  textareaRef?: Ref<HTMLTextAreaElement>
  invalid?: boolean
  describedBy?: string
}

export function CodeEditor({ id, value, onInput, rows = 16, textareaRef, invalid, describedBy }: Props) {
  const gutter = useRef<HTMLDivElement>(null)
  const count = value.split('\n').length
  const numbers = Array.from({ length: count }, (_, i) => i + 1).join('\n')
  return (
    <div class="code-editor">
      <div class="code-gutter" ref={gutter} aria-hidden="true">
        <pre>{numbers}</pre>
      </div>
      <textarea
        id={id}
        ref={textareaRef}
        rows={rows}
        wrap="off"
        spellcheck={false}
        autocomplete="off"
        aria-invalid={invalid ? 'true' : undefined}
        aria-describedby={describedBy}
        value={value}
        onInput={(e) => onInput(e.currentTarget.value)}
        onScroll={(e) => {
          if (gutter.current) gutter.current.scrollTop = e.currentTarget.scrollTop
        }}
      />
    </div>
  )
}

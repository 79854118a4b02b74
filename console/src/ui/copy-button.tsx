/** Copies a text (a generated config, a decision id) and says so. */
import { useState } from 'preact/hooks'

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [done, setDone] = useState(false)
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text)
      setDone(true)
      setTimeout(() => setDone(false), 1500)
    } catch {
      setDone(false)
    }
  }
  return (
    <button type="button" class="secondary" onClick={copy}>
      {done ? 'Copied' : label}
    </button>
  )
}

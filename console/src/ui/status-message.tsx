/** What a view shows while it loads, when it failed, and when there is nothing to show. */
import type { ComponentChildren } from 'preact'
import { ApiError } from '../api/client'

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" role="status" aria-live="polite">
      Loading {what}…
    </p>
  )
}

/** The service's own message, and what a refusal means for the reader. */
export function ErrorBox({ error }: { error: Error }) {
  const forbidden = error instanceof ApiError && error.status === 403
  return (
    <div class="error" role="alert">
      <strong>{forbidden ? 'Not allowed' : 'Could not load'}</strong>
      <span>{error.message}</span>
      {forbidden && <span class="muted">Your role bindings do not grant this; ask an owner.</span>}
    </div>
  )
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="muted empty">{children}</p>
}

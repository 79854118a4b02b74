/**
 * One section's loaded answer: its content, a loading line, a note when the subject's roles do
 * not grant the read (403: the section is simply not theirs to see), or the error.
 */
import type { ComponentChildren } from 'preact'
import { ApiError } from '../../api/client'
import { ErrorBox, Loading } from '../../ui/status-message'
import type { Loaded } from '../../ui/use-api'

export function LoadedSection<T>({
  loaded,
  what,
  children,
}: {
  loaded: Loaded<T>
  what: string
  children: (data: T) => ComponentChildren
}) {
  if (loaded.error instanceof ApiError && loaded.error.status === 403) {
    return <p class="muted hidden-note">Your role bindings do not let you read {what}.</p>
  }
  if (loaded.error) return <ErrorBox error={loaded.error} />
  if (loaded.data === undefined) return <Loading what={what} />
  return <>{children(loaded.data)}</>
}

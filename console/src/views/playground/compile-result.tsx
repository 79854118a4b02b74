/**
 * What the relay would answer: its status, then the SQL `WHERE` clause or the UCAST tree and the
 * masks on success, or each error with its location and the source line it points at.
 */
import type { CompileErrorItem, CompileOutcome } from '../../api/playground'
import { CopyButton } from '../../ui/copy-button'
import { JsonView } from '../../ui/json-view'
import { pointAt } from './source-line'

interface Props {
  outcome: CompileOutcome
  /** The modules compiled (the system's with the edits over them), to quote error lines from. */
  modules: Record<string, string>
  onGoTo: (file: string, row: number) => void
}

export function CompileResult({ outcome, modules, onGoTo }: Props) {
  const ok = outcome.status >= 200 && outcome.status < 300
  const query = outcome.body.result?.query
  const masks = outcome.body.result?.masks
  return (
    <section class="compile-result" aria-labelledby="compile-result-title">
      <h2 id="compile-result-title">Result</h2>
      <p class="row">
        <span class={`badge ${ok ? 'good' : 'bad'}`}>HTTP {outcome.status}</span>
        <code class="muted">{outcome.content_type}</code>
      </p>
      {ok && typeof query === 'string' && (
        <>
          <h3>SQL</h3>
          {query === '' ? (
            <p>Every row (no condition).</p>
          ) : (
            <div class="row">
              <pre class="source sql-query">{query}</pre>
              <CopyButton text={query} label="Copy SQL" />
            </div>
          )}
        </>
      )}
      {ok && typeof query !== 'string' && query !== undefined && (
        <>
          <h3>UCAST</h3>
          <JsonView value={query} label="UCAST query" />
        </>
      )}
      {ok && masks !== undefined && (
        <>
          <h3>Masks</h3>
          <JsonView value={masks} label="Masks" />
        </>
      )}
      {ok && query === undefined && <JsonView value={outcome.body} label="Answer" />}
      {!ok && <CompileErrors outcome={outcome} modules={modules} onGoTo={onGoTo} />}
    </section>
  )
}

function CompileErrors({ outcome, modules, onGoTo }: Props) {
  const errors: CompileErrorItem[] = outcome.body.errors?.length
    ? outcome.body.errors
    : [{ code: outcome.body.code, message: outcome.body.message }]
  return (
    <>
      {outcome.body.errors?.length ? (
        <p>
          <code>{outcome.body.code}</code> {outcome.body.message}
        </p>
      ) : null}
      <ul class="compile-errors" aria-label="Compile errors">
        {errors.map((e, i) => (
          <li key={i} class="error">
            <span>
              <strong>{e.code ?? 'error'}</strong>: {e.message}
            </span>
            <ErrorLocation error={e} modules={modules} onGoTo={onGoTo} />
            {e.details !== undefined && <JsonView value={e.details} label="Error details" />}
          </li>
        ))}
      </ul>
    </>
  )
}

function ErrorLocation({
  error,
  modules,
  onGoTo,
}: {
  error: CompileErrorItem
  modules: Record<string, string>
  onGoTo: Props['onGoTo']
}) {
  const loc = error.location
  if (!loc?.file) return null
  const where = `${loc.file}:${loc.row ?? '?'}:${loc.col ?? '?'}`
  const pointed = pointAt(modules[loc.file], loc.row, loc.col)
  const width = String(pointed?.row ?? '').length
  return (
    <>
      {pointed && modules[loc.file] !== undefined ? (
        <button
          type="button"
          class="secondary link-like"
          onClick={() => onGoTo(loc.file as string, pointed.row)}
          aria-label={`Go to ${where} in the editor`}
        >
          {where}
        </button>
      ) : (
        <code>{where}</code>
      )}
      {pointed && (
        <pre class="source error-line">
          {`${String(pointed.row).padStart(width)} | ${pointed.text}\n${' '.repeat(width)} | ${pointed.marker}`}
        </pre>
      )}
    </>
  )
}

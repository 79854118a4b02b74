/**
 * "Replay against…": evaluates this decision again (its path, input and nd_builtin_cache) over
 * candidate Rego, either an edited module of the system (stored systems: pick the module, edit
 * its source) or a commit, branch or tag of a git-backed system, and says whether the answer
 * would flip (`POST /v1/logreplay` with `decision_id`, docs/decision-replay.md). Shown only to
 * those the service lets replay; it changes nothing on the service.
 */
import { useEffect, useState } from 'preact/hooks'
import type { ApiClient } from '../../api/client'
import { type DecisionItem, type ReplayAnswer, replayDecision } from '../../api/decisions'
import { ErrorBox } from '../../ui/status-message'
import { useApi } from '../../ui/use-api'

interface Props {
  api: ApiClient
  decision: DecisionItem
  system: string
}

interface PolicyView {
  id: string
  modules: Record<string, string>
}

const NEW_MODULE = ''

export function ReplayPanel({ api, decision, system }: Props) {
  const sys = useApi(
    (signal) =>
      api.get<{ source_control?: { origin?: unknown } }>(
        `/v1/systems/${encodeURIComponent(system)}`,
        undefined,
        signal,
      ),
    [api, system],
  )
  const policies = useApi(
    (signal) =>
      api.get<PolicyView[]>('/v1/policies', { prefix: `systems/${system}` }, signal).catch(() => []),
    [api, system],
  )
  const gitBacked = sys.data?.source_control?.origin !== undefined
  const modules = new Map<string, string>()
  for (const p of policies.data ?? [])
    for (const [file, source] of Object.entries(p.modules)) modules.set(`${p.id}/${file}`, source)

  const [mode, setMode] = useState<'rego' | 'commit'>('rego')
  const [module, setModule] = useState(NEW_MODULE)
  const [name, setName] = useState(`systems/${system}/candidate.rego`)
  const [source, setSource] = useState('')
  const [commit, setCommit] = useState('')
  const [busy, setBusy] = useState(false)
  const [answer, setAnswer] = useState<ReplayAnswer | undefined>()
  const [error, setError] = useState<Error | undefined>()

  // The first stored module is the likely one to edit.
  useEffect(() => {
    const first = [...modules.keys()][0]
    if (first !== undefined && module === NEW_MODULE && source === '') pick(first)
    // Dependencies: only when the modules arrive.
  }, [policies.data])

  function pick(next: string) {
    setModule(next)
    if (next !== NEW_MODULE) {
      setName(next)
      setSource(modules.get(next) ?? '')
    }
  }

  const submit = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    setAnswer(undefined)
    setError(undefined)
    try {
      const body =
        mode === 'commit'
          ? { system, decision_id: decision.decision_id, commit: commit.trim() }
          : { system, decision_id: decision.decision_id, modules: { [name.trim()]: source } }
      setAnswer(await replayDecision(api, body))
    } catch (err) {
      setError(err as Error)
    } finally {
      setBusy(false)
    }
  }

  return (
    <section class="replay" aria-labelledby="replay-title">
      <h2 id="replay-title">Replay against…</h2>
      <p class="muted">
        Evaluates this decision's input again over candidate policy and says whether its result would change.
        Nothing is stored.
      </p>
      <form onSubmit={submit}>
        {gitBacked && (
          <fieldset class="modes">
            <legend>Candidate</legend>
            <label class="inline">
              <input
                type="radio"
                name="replay-mode"
                checked={mode === 'rego'}
                onChange={() => setMode('rego')}
              />{' '}
              Edited Rego
            </label>
            <label class="inline">
              <input
                type="radio"
                name="replay-mode"
                checked={mode === 'commit'}
                onChange={() => setMode('commit')}
              />{' '}
              A git commit, branch or tag
            </label>
          </fieldset>
        )}
        {mode === 'commit' ? (
          <>
            <label for="replay-commit">Commit, branch or tag</label>
            <input
              id="replay-commit"
              required
              value={commit}
              placeholder="main, v1.2.0 or a commit SHA"
              onInput={(e) => setCommit((e.target as HTMLInputElement).value)}
            />
          </>
        ) : (
          <>
            <div class="row">
              <div class="field">
                <label for="replay-module">Module to replace</label>
                <select
                  id="replay-module"
                  value={module}
                  onChange={(e) => pick((e.target as HTMLSelectElement).value)}
                >
                  {[...modules.keys()].map((m) => (
                    <option key={m} value={m}>
                      {m}
                    </option>
                  ))}
                  <option value={NEW_MODULE}>A new module…</option>
                </select>
              </div>
              {module === NEW_MODULE && (
                <div class="field grow">
                  <label for="replay-name">New module name</label>
                  <input
                    id="replay-name"
                    required
                    value={name}
                    onInput={(e) => setName((e.target as HTMLInputElement).value)}
                  />
                </div>
              )}
            </div>
            <label for="replay-source">Candidate Rego</label>
            <textarea
              id="replay-source"
              rows={12}
              spellcheck={false}
              value={source}
              onInput={(e) => setSource((e.target as HTMLTextAreaElement).value)}
            />
          </>
        )}
        <p>
          <button type="submit" disabled={busy}>
            {busy ? 'Replaying…' : 'Replay this decision'}
          </button>
        </p>
      </form>
      {error && <ErrorBox error={error} />}
      {answer && <ReplayVerdict answer={answer} decision={decision} />}
    </section>
  )
}

function ReplayVerdict({ answer, decision }: { answer: ReplayAnswer; decision: DecisionItem }) {
  const change = answer.changes.find((c) => c.decision_id === decision.decision_id)
  const against = answer.commit ? ` (commit ${answer.commit.slice(0, 12)})` : ''
  if (answer.replayed === 0) {
    return (
      <p class="verdict warn" role="status">
        Not replayed{against}:{' '}
        {answer.incomplete ? 'the evaluation deadline passed first.' : 'the decision could not be replayed.'}
      </p>
    )
  }
  if (!change) {
    return (
      <p class="verdict good" role="status">
        Would not flip{against}: the candidate answers the same as the logged result.
      </p>
    )
  }
  const show = (v: unknown) => (v === undefined ? 'undefined' : JSON.stringify(v))
  return (
    <div class="verdict bad" role="status">
      <strong>Would flip{against}.</strong>{' '}
      {change.error !== undefined ? (
        <>The candidate fails: {show(change.error)}</>
      ) : (
        <>
          Logged <code>{show(change.before)}</code>, the candidate answers <code>{show(change.after)}</code>.
        </>
      )}
    </div>
  )
}

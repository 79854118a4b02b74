/**
 * The search form: the query language (docs/service.md), result kind, system and time range.
 * Applying it writes the filters into the address; the view searches from the address.
 */
import { useEffect, useState } from 'preact/hooks'
import { type DecisionFilters, RANGES, RESULT_KINDS } from '../../api/decisions'

interface Props {
  filters: DecisionFilters
  systems: Array<{ id: string; name: string }> | undefined
  onApply: (filters: DecisionFilters) => void
}

export function SearchForm({ filters, systems, onApply }: Props) {
  const [draft, setDraft] = useState(filters)
  // The address changed (back button, a shared link): show what is searched.
  useEffect(() => setDraft(filters), [filters])
  const set = (patch: Partial<DecisionFilters>) => setDraft((d) => ({ ...d, ...patch }))
  const submit = (e: Event) => {
    e.preventDefault()
    onApply(draft)
  }
  // Choices apply at once; the text box applies on Enter or the button.
  const choose = (patch: Partial<DecisionFilters>) => {
    const next = { ...draft, ...patch }
    setDraft(next)
    if (next.range !== 'custom' || patch.range === undefined) onApply(next)
  }
  return (
    <form class="decision-search" onSubmit={submit} aria-label="Search decisions">
      <div class="field grow">
        <label for="decision-q">Search</label>
        <input
          id="decision-q"
          type="search"
          value={draft.search}
          placeholder='input.user:alice -kind:ALLOWED "two words"'
          aria-describedby="decision-q-help"
          onInput={(e) => set({ search: (e.target as HTMLInputElement).value })}
        />
        <span id="decision-q-help" class="muted hint">
          Words, "phrases", field:value (input.user:alice, path:app/*), -term to exclude.
        </span>
      </div>
      <div class="field">
        <label for="decision-kind">Result</label>
        <select
          id="decision-kind"
          value={draft.kind}
          onChange={(e) => choose({ kind: (e.target as HTMLSelectElement).value })}
        >
          <option value="">Any result</option>
          {RESULT_KINDS.map((k) => (
            <option key={k} value={k}>
              {k.toLowerCase()}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="decision-system">System</label>
        <select
          id="decision-system"
          value={draft.system}
          onChange={(e) => choose({ system: (e.target as HTMLSelectElement).value })}
        >
          <option value="">All systems</option>
          {draft.system && !systems?.some((s) => s.id === draft.system) && (
            <option value={draft.system}>{draft.system}</option>
          )}
          {systems?.map((s) => (
            <option key={s.id} value={s.id}>
              {s.name}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="decision-range">Time</label>
        <select
          id="decision-range"
          value={draft.range}
          onChange={(e) => choose({ range: (e.target as HTMLSelectElement).value })}
        >
          {RANGES.map((r) => (
            <option key={r.id} value={r.id}>
              {r.label}
            </option>
          ))}
        </select>
      </div>
      {draft.range === 'custom' && (
        <>
          <div class="field">
            <label for="decision-from">From</label>
            <input
              id="decision-from"
              type="datetime-local"
              step="1"
              value={draft.from}
              onInput={(e) => set({ from: (e.target as HTMLInputElement).value })}
            />
          </div>
          <div class="field">
            <label for="decision-to">To (empty: now)</label>
            <input
              id="decision-to"
              type="datetime-local"
              step="1"
              value={draft.to}
              onInput={(e) => set({ to: (e.target as HTMLInputElement).value })}
            />
          </div>
        </>
      )}
      <div class="field">
        <button type="submit">Search</button>
      </div>
    </form>
  )
}

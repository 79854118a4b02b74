/**
 * The playground's fields for one system (remounted when the system changes): its modules in an
 * editor, the rule path, target, input, unknowns and options, and the last answer. Only the
 * modules that differ from the stored ones are sent, as candidates over the system's own.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import type { ApiClient } from '../../api/client'
import { type CompileOutcome, compileInPlayground, systemModules, TARGETS } from '../../api/playground'
import { ErrorBox, Loading } from '../../ui/status-message'
import { useApi } from '../../ui/use-api'
import { CodeEditor } from './code-editor'
import { CompileResult } from './compile-result'
import { parseJsonField, parseUnknowns } from './json-field'
import { rulePaths } from './rule-paths'

interface Props {
  api: ApiClient
  system: string
  allowed: boolean
}

const DEFAULT_INPUT = '{}'

export function PlaygroundForm({ api, system, allowed }: Props) {
  const stored = useApi((signal) => systemModules(api, system, signal), [api, system])
  const [edits, setEdits] = useState<Record<string, string>>({})
  const [file, setFile] = useState('')
  const [rulePath, setRulePath] = useState('')
  const [accept, setAccept] = useState(TARGETS[0]?.accept ?? '')
  const [inputText, setInputText] = useState(DEFAULT_INPUT)
  const [unknownsText, setUnknownsText] = useState('')
  const [optionsText, setOptionsText] = useState('')
  const [busy, setBusy] = useState(false)
  const [answer, setAnswer] = useState<{ outcome: CompileOutcome; modules: Record<string, string> }>()
  const [failure, setFailure] = useState<Error>()
  const editor = useRef<HTMLTextAreaElement>(null)

  const modules = { ...stored.data, ...edits }
  const files = Object.keys(modules).sort()
  const suggestions = rulePaths(modules)

  // Once the modules arrive: edit the first, and offer the likeliest filter rule.
  useEffect(() => {
    if (!stored.data) return
    if (file === '') setFile(Object.keys(stored.data).sort()[0] ?? `systems/${system}/playground.rego`)
    if (rulePath === '') setRulePath(rulePaths(stored.data)[0] ?? '')
    // Dependencies: only when the stored modules arrive.
  }, [stored.data])

  const input = parseJsonField(inputText, 'The input')
  const options = parseJsonField(optionsText, 'The options', {})
  const optionsIsObject = options.ok && isObject(options.value)
  const ready = allowed && !busy && input.ok && optionsIsObject && rulePath.trim() !== ''

  async function compile() {
    if (!ready || !input.ok || !options.ok) return
    const changed: Record<string, string> = {}
    for (const [name, source] of Object.entries(edits))
      if (stored.data?.[name] !== source) changed[name] = source
    const unknowns = parseUnknowns(unknownsText)
    const request: Record<string, unknown> = { input: input.value }
    if (unknowns.length > 0) request.unknowns = unknowns
    if (Object.keys(options.value as object).length > 0) request.options = options.value
    setBusy(true)
    setFailure(undefined)
    try {
      const outcome = await compileInPlayground(api, system, rulePath.trim(), {
        modules: changed,
        accept,
        request,
      })
      setAnswer({ outcome, modules })
    } catch (err) {
      setAnswer(undefined)
      setFailure(err as Error)
    } finally {
      setBusy(false)
    }
  }

  function goTo(name: string, row: number) {
    setFile(name)
    // After the editor shows that module: select the line and bring it into view.
    requestAnimationFrame(() => {
      const area = editor.current
      if (!area) return
      const lines = area.value.split('\n')
      const start = lines.slice(0, row - 1).reduce((n, l) => n + l.length + 1, 0)
      area.focus()
      area.setSelectionRange(start, start + (lines[row - 1]?.length ?? 0))
      const lineHeight = area.scrollHeight / Math.max(1, lines.length)
      area.scrollTop = Math.max(0, (row - 3) * lineHeight)
    })
  }

  if (stored.error) return <ErrorBox error={stored.error} />
  if (!stored.data) return <Loading what={`the modules of ${system}`} />

  return (
    <form
      class="playground"
      onSubmit={(e) => {
        e.preventDefault()
        void compile()
      }}
      onKeyDown={(e) => {
        if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
          e.preventDefault()
          void compile()
        }
      }}
    >
      <div class="playground-policy">
        <div class="row">
          <div>
            <label for="playground-module">Module</label>
            <select id="playground-module" value={file} onChange={(e) => setFile(e.currentTarget.value)}>
              {!files.includes(file) && file !== '' && <option value={file}>{file}</option>}
              {files.map((name) => (
                <option key={name} value={name}>
                  {name}
                  {edits[name] !== undefined && edits[name] !== stored.data?.[name] ? ' (edited)' : ''}
                </option>
              ))}
            </select>
          </div>
          {edits[file] !== undefined && (
            <button
              type="button"
              class="secondary"
              onClick={() => {
                const { [file]: _, ...rest } = edits
                setEdits(rest)
              }}
            >
              Revert module
            </button>
          )}
        </div>
        <label for="playground-source">Rego source of {file}</label>
        <CodeEditor
          id="playground-source"
          value={modules[file] ?? ''}
          onInput={(value) => setEdits({ ...edits, [file]: value })}
          textareaRef={editor}
          rows={18}
        />
      </div>
      <div class="playground-request">
        <label for="playground-rule">Rule path</label>
        <input
          id="playground-rule"
          list="playground-rules"
          value={rulePath}
          placeholder="filters/include"
          onInput={(e) => setRulePath(e.currentTarget.value)}
        />
        <datalist id="playground-rules">
          {suggestions.map((s) => (
            <option key={s} value={s} />
          ))}
        </datalist>
        <label for="playground-target">Target</label>
        <select id="playground-target" value={accept} onChange={(e) => setAccept(e.currentTarget.value)}>
          {TARGETS.map((t) => (
            <option key={t.accept} value={t.accept}>
              {t.label}
            </option>
          ))}
        </select>
        <label for="playground-input">Input (JSON)</label>
        <textarea
          id="playground-input"
          rows={6}
          spellcheck={false}
          value={inputText}
          aria-invalid={input.ok ? undefined : 'true'}
          aria-describedby={input.ok ? undefined : 'playground-input-error'}
          onInput={(e) => setInputText(e.currentTarget.value)}
        />
        {!input.ok && (
          <p id="playground-input-error" class="field-error">
            {input.message}
          </p>
        )}
        <label for="playground-unknowns">Unknowns (optional)</label>
        <input
          id="playground-unknowns"
          value={unknownsText}
          placeholder="input.tickets, input.users"
          aria-describedby="playground-unknowns-hint"
          onInput={(e) => setUnknownsText(e.currentTarget.value)}
        />
        <p id="playground-unknowns-hint" class="muted hint">
          Empty: the rule's <code>custom.unknowns</code> metadata decides.
        </p>
        <label for="playground-options">Options (JSON, optional)</label>
        <textarea
          id="playground-options"
          rows={3}
          spellcheck={false}
          value={optionsText}
          placeholder='{"targetSQLTableMappings": {"postgresql": {"tickets": {"$self": "t"}}}}'
          aria-invalid={optionsIsObject ? undefined : 'true'}
          aria-describedby={optionsIsObject ? undefined : 'playground-options-error'}
          onInput={(e) => setOptionsText(e.currentTarget.value)}
        />
        {!optionsIsObject && (
          <p id="playground-options-error" class="field-error">
            {options.ok ? 'The options must be a JSON object' : options.message}
          </p>
        )}
        <div class="row playground-actions">
          <button type="submit" disabled={!ready} aria-keyshortcuts="Control+Enter">
            {busy ? 'Compiling…' : 'Compile'}
          </button>
          <span class="muted">Ctrl+Enter compiles from any field.</span>
        </div>
      </div>
      {/* A short announcement; the answer itself can be long (a UCAST tree). */}
      <p class="visually-hidden" role="status" aria-live="polite">
        {busy ? 'Compiling' : answer ? `Compiled: HTTP ${answer.outcome.status}` : ''}
      </p>
      <div class="playground-answer">
        {failure && <ErrorBox error={failure} />}
        {answer && <CompileResult outcome={answer.outcome} modules={answer.modules} onGoTo={goTo} />}
      </div>
    </form>
  )
}

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * The configs an OPA agent and a regent relay start with (`GET /v1/systems/{id}/assets/…`), with
 * copy buttons. They hold the system's agent token, so they are shown only to subjects the
 * service lets read them (`systems.install`), and only when asked for.
 */
import { useState } from 'preact/hooks'
import type { ApiClient } from '../../api/client'
import { idPath } from '../../api/client'
import type { System } from '../../api/systems'
import { getText } from '../../api/text'
import { useAllowed } from '../../auth/permissions'
import { CopyButton } from '../../ui/copy-button'
import { useApi } from '../../ui/use-api'
import { LoadedSection } from './loaded'

const ASSETS = [
  { type: 'opa-config', title: 'OPA agent config' },
  { type: 'relay-config', title: 'regent relay config' },
] as const

export function SystemConfigs({ api, system }: { api: ApiClient; system: System }) {
  const path = `/v1/systems/${idPath(system.id)}/assets/opa-config`
  const allowed = useAllowed(api, { operation: 'GET', path })
  const [shown, setShown] = useState(false)
  return (
    <section aria-labelledby="configs-title">
      <h2 id="configs-title">Agent and relay configs</h2>
      {!allowed && (
        <p class="muted hidden-note">Your role bindings do not let you read the generated configs.</p>
      )}
      {allowed && !shown && (
        <p>
          <button type="button" class="secondary" onClick={() => setShown(true)}>
            Show configs (they hold the agent token)
          </button>
        </p>
      )}
      {allowed && shown && ASSETS.map((a) => <Asset key={a.type} api={api} system={system} {...a} />)}
    </section>
  )
}

function Asset({
  api,
  system,
  type,
  title,
}: {
  api: ApiClient
  system: System
  type: string
  title: string
}) {
  const text = useApi(
    (signal) => getText(api, `/v1/systems/${idPath(system.id)}/assets/${type}`, signal),
    [api, system.id, type],
  )
  return (
    <div>
      <div class="module-head">
        <h3>{title}</h3>
        {text.data && <CopyButton text={text.data} label={`Copy ${title}`} />}
      </div>
      <LoadedSection loaded={text} what={title}>
        {(yaml) => (
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (WCAG 2.1.1).
          <section class="json" aria-label={title} tabIndex={0}>
            <pre>{yaml}</pre>
          </section>
        )}
      </LoadedSection>
    </div>
  )
}

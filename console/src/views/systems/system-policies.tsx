/** A system's policies: each module's Rego source, highlighted. */
import type { ApiClient } from '../../api/client'
import { idPath } from '../../api/client'
import type { Policy, System } from '../../api/systems'
import { CopyButton } from '../../ui/copy-button'
import { RegoSource } from '../../ui/rego-source'
import { Empty } from '../../ui/status-message'
import { useApi } from '../../ui/use-api'
import { LoadedSection } from './loaded'

export function SystemPolicies({ api, system }: { api: ApiClient; system: System }) {
  const refs = system.policies ?? []
  return (
    <section aria-labelledby="policies-title">
      <h2 id="policies-title">Policies</h2>
      {refs.length === 0 && <Empty>No policies.</Empty>}
      {refs.map((p) => (
        <PolicyModules key={p.id} api={api} policyId={p.id} />
      ))}
    </section>
  )
}

function PolicyModules({ api, policyId }: { api: ApiClient; policyId: string }) {
  const policy = useApi(
    (signal) => api.get<Policy>(`/v1/policies/${idPath(policyId)}`, undefined, signal),
    [api, policyId],
  )
  return (
    <section aria-label={`policy ${policyId}`}>
      <h3>
        <code>{policyId}</code>
      </h3>
      <LoadedSection loaded={policy} what="this policy">
        {(p) =>
          Object.entries(p.modules)
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([file, source]) => (
              <div key={file}>
                <div class="module-head">
                  <h4>{file}</h4>
                  <CopyButton text={source} label={`Copy ${file}`} />
                </div>
                <RegoSource source={source} label={`${policyId}/${file}`} />
              </div>
            ))
        }
      </LoadedSection>
    </section>
  )
}

/** A system's bundle history and registry uploads (docs/bundle-registry.md). */
import type { ApiClient } from '../../api/client'
import { idPath } from '../../api/client'
import type { BundleDeploy, BundleVersion, System } from '../../api/systems'
import { ScrollTable } from '../../ui/scroll-table'
import { Empty } from '../../ui/status-message'
import { TimeAgo } from '../../ui/time'
import { useApi } from '../../ui/use-api'
import { LoadedSection } from './loaded'

export function SystemBundles({ api, system }: { api: ApiClient; system: System }) {
  const base = `/v1/systems/${idPath(system.id)}`
  const versions = useApi(
    (signal) => api.get<BundleVersion[]>(`${base}/bundles`, { limit: 20 }, signal),
    [api, base],
  )
  const deploy = useApi(
    (signal) => api.get<BundleDeploy>(`${base}/bundle-deploy`, undefined, signal),
    [api, base],
  )
  return (
    <section aria-labelledby="bundles-title">
      <h2 id="bundles-title">Bundles</h2>
      <LoadedSection loaded={deploy} what="the bundle registry">
        {(d) =>
          d.configured ? (
            <p>
              Uploaded to a bundle registry
              {d.manual_deployment ? ', deployed by hand' : ', each build deployed'}.
            </p>
          ) : (
            <p class="muted">No bundle registry configured: agents download bundles from the service.</p>
          )
        }
      </LoadedSection>
      <LoadedSection loaded={versions} what="bundle versions">
        {(list) =>
          list.length === 0 ? (
            <Empty>No registry versions.</Empty>
          ) : (
            <ScrollTable label="bundle versions">
              <table class="cards">
                <caption class="muted">Newest first (the last 20)</caption>
                <thead>
                  <tr>
                    <th scope="col">Bundle</th>
                    <th scope="col">Version</th>
                    <th scope="col">Revision</th>
                    <th scope="col">Built</th>
                    <th scope="col">Deployed</th>
                    <th scope="col">Upload</th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((v) => (
                    <tr key={`${v.bundle}/${v.version}`}>
                      <td data-label="Bundle">{v.bundle}</td>
                      <td data-label="Version">
                        {v.version} {v.active && <span class="badge good">active</span>}
                      </td>
                      <td data-label="Revision">
                        <code title={v.revision}>{v.revision.slice(0, 16)}</code>
                      </td>
                      <td data-label="Built">
                        <TimeAgo at={v.built_at} />
                      </td>
                      <td data-label="Deployed">
                        {v.deployed_at ? <TimeAgo at={v.deployed_at} /> : <span class="muted">no</span>}
                      </td>
                      <td data-label="Upload">
                        {v.upload ? (
                          <>
                            <span
                              class={`badge ${v.upload.state === 'uploaded' ? 'good' : v.upload.error ? 'bad' : 'warn'}`}
                            >
                              {v.upload.state}
                            </span>
                            {v.upload.error && <span class="muted"> {v.upload.error}</span>}
                          </>
                        ) : (
                          <span class="muted">none</span>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollTable>
          )
        }
      </LoadedSection>
    </section>
  )
}

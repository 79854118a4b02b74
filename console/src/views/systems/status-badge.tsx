/** A system's status as a badge, with the reasons when it is not Ready. */
import { type System, statusReasons } from '../../api/systems'

export function SystemStatus({ system, brief = false }: { system: System; brief?: boolean }) {
  const status = system.status ?? 'unknown'
  const ready = status === 'Ready'
  const reasons = ready ? [] : statusReasons(system)
  return (
    <span>
      <span class={`badge ${ready ? 'good' : 'bad'}`}>{status}</span>
      {reasons.length > 0 &&
        (brief ? (
          <span class="muted"> {reasons[0]}</span>
        ) : (
          <ul class="reasons">
            {reasons.map((r) => (
              <li key={r}>{r}</li>
            ))}
          </ul>
        ))}
    </span>
  )
}

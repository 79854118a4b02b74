/** Systems: `#/systems` lists them, `#/systems/<id>` shows one. */
import type { ViewProps } from './index'
import { SystemDetail } from './systems/system-detail'
import { SystemsList } from './systems/systems-list'

export function SystemsView(props: ViewProps) {
  const [id] = props.rest
  return id === undefined ? <SystemsList {...props} /> : <SystemDetail {...props} id={id} />
}

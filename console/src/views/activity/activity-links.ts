/**
 * What an activity record changed, as a console address: the request's path names the resource
 * (a system, a policy or data of a system, a datasource, a token, a decision…). Only views that
 * exist are linked; the caller passes their ids.
 */

export interface Target {
  /** The console view. */
  view: string
  /** Segments after the view's id. */
  segments: string[]
  /** What the link says. */
  label: string
}

const decode = (s: string) => {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

/**
 * Where a request path's resource is shown, best first: the caller links the first whose view
 * exists (a datasource of a system → the Datasources view, else the system's page).
 */
export function targetsOf(path: string): Target[] {
  const target = targetOf(path)
  if (!target) return []
  const parts = path.split('?')[0]!.split('/').filter(Boolean).map(decode)
  if (target.view === 'datasources' && parts[2] === 'systems' && parts[3]) {
    return [target, { view: 'systems', segments: [parts[3]], label: `system ${parts[3]}` }]
  }
  return [target]
}

/** The target of a request path, or undefined when it names nothing the console shows. */
export function targetOf(path: string): Target | undefined {
  const parts = path.split('?')[0]!.split('/').filter(Boolean).map(decode)
  const [version, area, ...rest] = parts
  if (version !== 'v1' && version !== 'v2') return undefined
  const systemUnder = rest[0] === 'systems' && rest[1] ? rest[1] : undefined
  switch (area) {
    case 'systems':
      if (rest[0] === undefined || rest[0] === 'source-control')
        return { view: 'systems', segments: [], label: 'systems' }
      return { view: 'systems', segments: [rest[0]], label: `system ${rest[0]}` }
    case 'policies':
    case 'data':
      if (systemUnder) return { view: 'systems', segments: [systemUnder], label: `system ${systemUnder}` }
      return undefined
    case 'datasources':
      if (rest.length > 0)
        return { view: 'datasources', segments: [rest.join('/')], label: `datasource ${rest.join('/')}` }
      return { view: 'datasources', segments: [], label: 'datasources' }
    case 'tokens':
      return rest[0]
        ? { view: 'tokens', segments: [rest[0]], label: `token ${rest[0]}` }
        : { view: 'tokens', segments: [], label: 'tokens' }
    case 'decisions':
      return rest[0]
        ? { view: 'decisions', segments: [rest[0]], label: `decision ${rest[0]}` }
        : { view: 'decisions', segments: [], label: 'decisions' }
    case 'libraries':
      return rest[0]
        ? { view: 'libraries', segments: [rest[0]], label: `library ${rest[0]}` }
        : { view: 'libraries', segments: [], label: 'libraries' }
    case 'authz':
      if (rest[0] === 'rolebindings') return { view: 'access', segments: [], label: 'access' }
      return undefined
    case 'status':
    case 'fleet':
      return { view: 'fleet', segments: [], label: 'fleet' }
    default:
      return undefined
  }
}

/**
 * The blueprints a service offers: the built-in ones and the `<name>.yaml` files of
 * `service.blueprints.dir`, read on each request so a new file needs no restart. A file that
 * does not hold a valid blueprint is reported (name, field, line) when it is asked for; it never
 * hides the others. A file may not reuse a built-in name.
 */
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { readYaml, YamlError } from '../../core/yaml.js'
import { withExactIntegers } from '../json-document.js'
import { apiAuthorizationBlueprint } from './builtin/api-authorization.js'
import { dataFilteringBlueprint } from './builtin/data-filtering.js'
import { edgeRelayBlueprint } from './builtin/edge-relay.js'
import { BLUEPRINT_NAME, type Blueprint, type BlueprintInput, blueprintSchema } from './definition.js'

const BUILT_IN: Readonly<Record<string, BlueprintInput>> = {
  'api-authorization': apiAuthorizationBlueprint,
  'data-filtering': dataFilteringBlueprint,
  'edge-relay': edgeRelayBlueprint,
}

// A blueprint file is configuration, not a bulk document.
const MAX_FILE_BYTES = 4 * 1024 * 1024
const MAX_YAML_NODES = 100_000

/** A blueprint file that cannot be used, with the reason. */
export class InvalidBlueprintError extends Error {}

export class BlueprintCatalog {
  constructor(private readonly dir: string | undefined) {}

  /** Every blueprint name, sorted. */
  async names(): Promise<string[]> {
    const names = new Set(Object.keys(BUILT_IN))
    for (const name of await this.fileNames()) names.add(name)
    return [...names].sort()
  }

  /**
   * The named blueprint, or undefined when there is none.
   * @throws InvalidBlueprintError when its file does not hold a valid blueprint.
   */
  async get(name: string): Promise<Blueprint | undefined> {
    if (!BLUEPRINT_NAME.test(name)) return undefined
    const builtIn = BUILT_IN[name]
    if (builtIn) return blueprintSchema.parse(builtIn)
    if (!this.dir || !(await this.fileNames()).includes(name)) return undefined
    return this.readFile(name)
  }

  private async fileNames(): Promise<string[]> {
    if (!this.dir) return []
    let entries: string[]
    try {
      entries = await readdir(this.dir)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw err
    }
    return entries
      .filter((file) => file.endsWith('.yaml'))
      .map((file) => file.slice(0, -'.yaml'.length))
      .filter((name) => BLUEPRINT_NAME.test(name) && !(name in BUILT_IN))
  }

  private async readFile(name: string): Promise<Blueprint> {
    const file = join(this.dir!, `${name}.yaml`)
    const text = await readFile(file, 'utf8')
    if (Buffer.byteLength(text) > MAX_FILE_BYTES)
      throw new InvalidBlueprintError(`blueprint ${name}: ${file} is larger than ${MAX_FILE_BYTES} bytes`)
    let value: unknown
    try {
      // Integers keep their digits: a data document's 64-bit id must reach the bundle as written.
      value = withExactIntegers(readYaml(text, { maxNodes: MAX_YAML_NODES, intAsBigInt: true }))
    } catch (err) {
      if (err instanceof YamlError)
        throw new InvalidBlueprintError(`blueprint ${name}: ${file}: ${err.message}`)
      throw err
    }
    const result = blueprintSchema.safeParse(value)
    if (!result.success) {
      const issue = result.error.issues[0]!
      const where = issue.path.map(String).join('.') || '(document)'
      throw new InvalidBlueprintError(`blueprint ${name}: ${file}: ${where}: ${issue.message}`)
    }
    return result.data
  }
}

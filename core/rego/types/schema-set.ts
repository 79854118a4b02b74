/**
 * The JSON Schemas `# METADATA schemas:` annotations name (OPA's `ast.SchemaSet`): each filed under
 * the path after `schema` (`schema.k8s.pod` is `["k8s", "pod"]`). `regent check -s DIR` and
 * `regent eval -s DIR` fill it from a directory; a single `-s` file is the schema `schema` itself.
 */
export class SchemaSet {
  readonly #schemas = new Map<string, unknown>()

  /** Files `schema` under `path` (the parts after `schema`; none for the root). */
  put(path: readonly string[], schema: unknown): this {
    this.#schemas.set(JSON.stringify(path), schema)
    return this
  }

  /** The schema filed under `path`, or undefined. */
  get(path: readonly string[]): unknown {
    return this.#schemas.get(JSON.stringify(path))
  }

  /** How many schemas the set holds. */
  get size(): number {
    return this.#schemas.size
  }
}

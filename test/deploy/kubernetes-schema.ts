/**
 * Offline validation of Kubernetes manifests against the Kubernetes API's own definitions, from
 * the `kubernetes-models` package (generated from the Kubernetes OpenAPI spec; no cluster and no
 * network needed). Two checks, because neither alone is strict:
 *
 * - `schemaProblems`: the package's JSON-schema validators (ajv, compiled from the OpenAPI
 *   schemas): types, required fields, enums and formats such as quantities (`memory: 96 MB` fails).
 * - `unknownFieldProblems`: those schemas allow unknown fields (the OpenAPI spec has no
 *   `additionalProperties: false`), while `kubectl apply --validate=strict` refuses them. The
 *   package's TypeScript interfaces are exact, so each document is type-checked as an object
 *   literal of its kind's interface: a misspelled key (`livenessprobe`) is an excess property.
 */
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

/** One manifest document and where it came from. */
export interface ManifestDocument {
  file: string
  index: number
  apiVersion: string
  kind: string
  body: Record<string, unknown>
}

interface KubernetesModel {
  validate(): void
}
type ModelClass = new (data: unknown) => KubernetesModel

/** `apps/v1` → `kubernetes-models/apps/v1`, `v1` (the core group) → `kubernetes-models/v1`. */
function modelModule(apiVersion: string): string {
  return `kubernetes-models/${apiVersion}`
}

/** Problems the JSON schema of the document's apiVersion and kind finds, as `file#n Kind: message`. */
export async function schemaProblems(docs: ManifestDocument[]): Promise<string[]> {
  const problems: string[] = []
  for (const doc of docs) {
    const where = `${doc.file}#${doc.index} ${doc.kind}`
    let models: Record<string, ModelClass | undefined>
    try {
      models = (await import(modelModule(doc.apiVersion))) as Record<string, ModelClass | undefined>
    } catch (err) {
      problems.push(`${where}: no schema for apiVersion ${doc.apiVersion} (${(err as Error).message})`)
      continue
    }
    const Model = models[doc.kind]
    if (!Model) {
      problems.push(`${where}: no kind ${doc.kind} in ${doc.apiVersion}`)
      continue
    }
    try {
      new Model(doc.body).validate()
    } catch (err) {
      problems.push(`${where}: ${(err as Error).message}`)
    }
  }
  return problems
}

/**
 * Fields the document's kind does not define, found by type-checking each document as
 * `const doc: I<Kind> = <document>` against the package's interfaces. The virtual files sit in
 * this folder so that `kubernetes-models` resolves from the repository's node_modules.
 */
export function unknownFieldProblems(docs: ManifestDocument[]): string[] {
  const here = dirname(fileURLToPath(import.meta.url))
  const sources = new Map<string, { doc: ManifestDocument; text: string }>()
  docs.forEach((doc, n) => {
    const text =
      `import type { I${doc.kind} } from '${modelModule(doc.apiVersion)}/${doc.kind}'\n` +
      `export const doc: I${doc.kind} = ${JSON.stringify(doc.body, null, 2)}\n`
    sources.set(join(here, `__manifest_${n}.ts`), { doc, text })
  })
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    types: [],
  }
  const host = ts.createCompilerHost(options)
  const readFile = host.readFile.bind(host)
  const fileExists = host.fileExists.bind(host)
  const getSourceFile = host.getSourceFile.bind(host)
  host.readFile = (name) => sources.get(name)?.text ?? readFile(name)
  host.fileExists = (name) => sources.has(name) || fileExists(name)
  host.getSourceFile = (name, language, onError) => {
    const virtual = sources.get(name)
    return virtual
      ? ts.createSourceFile(name, virtual.text, language)
      : getSourceFile(name, language, onError)
  }
  const program = ts.createProgram([...sources.keys()], options, host)
  const problems: string[] = []
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const virtual = diagnostic.file && sources.get(diagnostic.file.fileName)
    const where = virtual ? `${virtual.doc.file}#${virtual.doc.index} ${virtual.doc.kind}` : 'typescript'
    let line = ''
    if (virtual && diagnostic.start !== undefined) {
      const at = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start).line
      line = ` (at ${virtual.text.split('\n')[at]?.trim()})`
    }
    problems.push(`${where}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '; ')}${line}`)
  }
  return problems
}

/**
 * `regent inspect <path> [-f pretty|json] [-a]`: summarises a bundle (folder or tarball) or a
 * single Rego file as `opa inspect` does: the manifest (revision, roots, metadata), the
 * namespaces with the files that define them, whether the bundle is signed, and with `-a` the
 * `# METADATA` annotations. Modules are parsed with regent's Rego parser; a module that does not
 * parse still names its namespace from its `package` line.
 */
import { existsSync, statSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { posix } from 'node:path'
import { Command } from 'commander'
import { stringify } from 'lossless-json'
import { type Bundle, bundleFromFiles, packagePath, readBundle } from '../../core/bundle/index.js'
import { parseModuleWithErrors, toOpaJson } from '../../core/rego/index.js'
import type { Annotations, Module, Term } from '../../core/rego/syntax/ast.js'
import { CommandError, type CommandIo, PROCESS_IO, reportError } from './sign.js'

/** Options of `regent inspect`. */
export interface InspectOptions {
  format: string
  annotations?: boolean
}

/** One annotation block and the document it describes. */
export interface InspectAnnotation {
  path: string
  location: { file: string; row: number; col: number }
  annotations: unknown
}

/** What `inspect` reports; the JSON output is this object. */
export interface InspectInfo {
  manifest: Record<string, unknown>
  signatures_config?: { signatures: string[] }
  namespaces: Record<string, string[]>
  annotations?: InspectAnnotation[]
  /** Files that are neither modules nor data (carried by the bundle). */
  files: string[]
}

/** Builds the `inspect` command. */
export function inspectCommand(): Command {
  return new Command('inspect')
    .description('summarise a bundle or a Rego file: manifest, namespaces, signatures, annotations')
    .argument('<path>', 'bundle folder, bundle tarball or .rego file')
    .option('-f, --format <format>', 'pretty or json', 'pretty')
    .option('-a, --annotations', 'include # METADATA annotations')
    .action(async (path: string, options: InspectOptions) => {
      process.exitCode = await runInspect(path, options)
    })
}

/** Runs `regent inspect`; resolves to the exit code. */
export async function runInspect(
  path: string,
  options: InspectOptions,
  io: CommandIo = PROCESS_IO,
): Promise<number> {
  try {
    if (options.format !== 'pretty' && options.format !== 'json') {
      throw new CommandError(`--format ${options.format} is not supported (use pretty or json)`, 2)
    }
    const info = await inspectPath(path, options.annotations ?? false)
    io.stdout(options.format === 'json' ? `${stringify(info, null, 2)}\n` : renderPretty(info))
    return 0
  } catch (err) {
    return reportError('inspect', err, io)
  }
}

/** The summary of the bundle or Rego file at `path`. */
export async function inspectPath(path: string, withAnnotations: boolean): Promise<InspectInfo> {
  if (!existsSync(path)) throw new CommandError(`${path} does not exist`)
  const isDir = statSync(path).isDirectory()
  let bundle: Bundle
  let display: (file: string) => string
  if (isDir) {
    bundle = await readBundle({ dir: path })
    display = (file) => posix.join(path, file)
  } else if (path.endsWith('.rego')) {
    bundle = bundleFromFiles([{ path: posix.basename(path), raw: await readFile(path) }])
    display = () => path
  } else {
    bundle = await readBundle(await readFile(path))
    display = (file) => `/${file}`
  }
  const info: InspectInfo = {
    manifest: { revision: '', ...bundle.manifest },
    namespaces: {},
    files: bundle.files.map((f) => display(f.path)),
  }
  if (bundle.signatures) info.signatures_config = bundle.signatures
  const annotations: InspectAnnotation[] = []
  const regoVersion = bundle.manifest.rego_version === 0 ? 'v0' : 'v1'
  for (const module of bundle.modules) {
    const file = display(module.path)
    const parsed = parseModuleWithErrors(module.source, { file, regoVersion }).module
    const pkg = parsed
      ? refText(parsed.package.path)
      : `data.${packagePath(module.source, module.path).replaceAll('/', '.')}`
    addNamespace(info, pkg, file)
    if (parsed && withAnnotations) annotations.push(...moduleAnnotations(parsed, pkg))
  }
  for (const dataFile of bundle.dataFiles) {
    const dir = posix.dirname(dataFile.path)
    const namespace = dir === '.' ? 'data' : `data.${dir.replaceAll('/', '.')}`
    addNamespace(info, namespace, display(dataFile.path))
  }
  if (withAnnotations) info.annotations = annotations
  return info
}

function addNamespace(info: InspectInfo, namespace: string, file: string): void {
  const files = info.namespaces[namespace]
  if (files) files.push(file)
  else info.namespaces[namespace] = [file]
}

function moduleAnnotations(module: Module, pkg: string): InspectAnnotation[] {
  const ruleOf = new Map<Annotations, string>()
  for (const rule of module.rules) {
    for (const block of rule.annotations ?? []) ruleOf.set(block, `${pkg}.${refText(rule.head.ref)}`)
  }
  return module.annotations.map((block) => ({
    path: block.scope === 'package' || block.scope === 'subpackages' ? pkg : (ruleOf.get(block) ?? pkg),
    location: {
      file: block.location?.file ?? '',
      row: block.location?.row ?? 0,
      col: block.location?.col ?? 0,
    },
    annotations: toOpaJson(block, { locations: false }),
  }))
}

/** A ref as Rego text: `data.a.b`, `p["x y"]`, `q[x]`. */
function refText(terms: readonly Term[]): string {
  return terms
    .map((term, i) => {
      if (i === 0) return term.type === 'var' ? term.value : '?'
      if (term.type === 'string')
        return /^[A-Za-z_][A-Za-z0-9_]*$/.test(term.value)
          ? `.${term.value}`
          : `[${JSON.stringify(term.value)}]`
      if (term.type === 'var') return `[${term.value}]`
      return '[_]'
    })
    .join('')
}

function renderPretty(info: InspectInfo): string {
  const manifest = info.manifest
  const rows: string[][] = [
    ['Revision', String(manifest.revision ?? '')],
    [
      'Roots',
      ((manifest.roots as string[] | undefined) ?? [''])
        .map((r) => (r === '' ? '(all of data)' : r))
        .join('\n'),
    ],
  ]
  if (manifest.rego_version !== undefined) rows.push(['Rego version', String(manifest.rego_version)])
  if (manifest.metadata !== undefined) rows.push(['Metadata', JSON.stringify(manifest.metadata)])
  rows.push(['Signed', info.signatures_config ? signatureSummary(info.signatures_config.signatures) : 'no'])
  let out = `MANIFEST:\n${table(['Field', 'Value'], rows)}`
  const namespaces = Object.entries(info.namespaces).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  if (namespaces.length > 0) {
    out += `NAMESPACES:\n${table(
      ['Namespace', 'File'],
      namespaces.map(([ns, files]) => [ns, files.join('\n')]),
    )}`
  }
  if (info.files.length > 0)
    out += `OTHER FILES:\n${table(
      ['File'],
      info.files.map((f) => [f]),
    )}`
  if (info.annotations && info.annotations.length > 0) {
    out += 'ANNOTATIONS:\n'
    for (const a of info.annotations) {
      const json = a.annotations as Record<string, unknown>
      out += `${a.path} (${a.location.file}:${a.location.row})\n`
      for (const [key, value] of Object.entries(json)) {
        out += `  ${key}: ${typeof value === 'string' ? value : stringify(value)}\n`
      }
    }
  }
  return out
}

function signatureSummary(signatures: string[]): string {
  const [token] = signatures
  if (signatures.length !== 1 || !token) return `yes (${signatures.length} JWTs)`
  try {
    const [header, payload] = token
      .split('.')
      .slice(0, 2)
      .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>)
    const files = Array.isArray(payload?.files) ? payload.files.length : 0
    const kid = header?.kid ?? payload?.keyid
    return `yes (${String(header?.alg)}${kid ? `, key id ${String(kid)}` : ''}, ${files} files; not verified)`
  } catch {
    return 'yes (undecodable JWT)'
  }
}

/** A text table in the style of `opa inspect` (multi-line cells allowed). */
function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) =>
    Math.max(h.length, ...rows.flatMap((row) => (row[i] ?? '').split('\n').map((line) => line.length))),
  )
  const rule = `+${widths.map((w) => '-'.repeat(w + 2)).join('+')}+\n`
  const line = (cells: string[]) => `|${cells.map((c, i) => ` ${c.padEnd(widths[i]!)} `).join('|')}|\n`
  const centred = headers.map((h, i) => {
    const pad = widths[i]! - h.length
    return ' '.repeat(Math.floor(pad / 2)) + h.toUpperCase() + ' '.repeat(Math.ceil(pad / 2))
  })
  let out = rule + line(centred) + rule
  for (const row of rows) {
    const split = row.map((cell) => cell.split('\n'))
    const height = Math.max(...split.map((lines) => lines.length))
    for (let k = 0; k < height; k++) out += line(split.map((lines) => lines[k] ?? ''))
  }
  return out + rule
}

/**
 * `regent test bootstrap <entrypoint>...` and `regent test new <annotation>`: generate test stubs
 * into `<file>_test.rego` next to each policy file. One group per rule body: a success case with
 * an input built from the keys the body reads, a no-input failure case and a wrong-values failure
 * case (cli/test-stubs/). Existing files are never overwritten without `-f`.
 */
import { existsSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { resolve, sep } from 'node:path'
import type { Command } from 'commander'
import type { Module, Rule } from '../../core/rego/syntax/ast.js'
import { parseModule } from '../../core/rego/syntax/module-parser.js'
import {
  failureText,
  type GenerateOptions,
  loadForGeneration,
  log,
  noticeServiceFlags,
} from '../test-stubs/generate-options.js'
import { inputShape } from '../test-stubs/input-shape.js'
import {
  type RuleTarget,
  ruleTarget,
  testFileHeader,
  testGroup,
  testNamePart,
} from '../test-stubs/test-groups.js'

/** The test file for a policy file: `authz.rego` → `authz_test.rego`. */
export function testFileFor(file: string): string {
  return file.replace(/\.rego$/, '_test.rego')
}

/** `authz/allow`, `authz.allow` and `data.authz.allow` all name the path `["authz", "allow"]`. */
export function entrypointPath(entrypoint: string): string[] {
  return entrypoint
    .replace(/^data(\.|\/|$)/, '')
    .split(/[./]/)
    .filter((p) => p !== '')
}

interface Candidate {
  file: string
  module: Module
  rule: Rule
  target: RuleTarget
}

/** Rules of the policy files (not tests, not libraries, not inside tarballs) that can be tested. */
function candidates(modules: Map<string, Module>, libraries: string[]): Candidate[] {
  const libRoots = libraries.map((l) => resolve(l) + sep)
  const out: Candidate[] = []
  for (const [file, module] of modules) {
    if (file.endsWith('_test.rego') || !existsSync(file)) continue
    if (libRoots.some((root) => resolve(file).startsWith(root))) continue
    for (const rule of module.rules) {
      const target = ruleTarget(module, rule)
      if (target) out.push({ file, module, rule, target })
    }
  }
  return out
}

const startsWith = (path: string[], prefix: string[]) => prefix.every((p, i) => path[i] === p)

/** The rules tests can be generated for; undefined (exit 1, the reason on stderr) when loading fails. */
async function loadCandidates(options: GenerateOptions): Promise<Candidate[] | undefined> {
  try {
    const { loaded, libraries } = await loadForGeneration(options)
    return candidates(loaded.modules, libraries)
  } catch (err) {
    process.stderr.write(`${failureText(err)}\n`)
    process.exitCode = 1
    return undefined
  }
}

/** The work of `test bootstrap` (declared in test-generate-commands.ts). */
export async function runTestBootstrap(
  entrypoints: string[],
  options: GenerateOptions,
  command: Command,
): Promise<void> {
  noticeServiceFlags(command)
  const found = await loadCandidates(options)
  if (found === undefined) return
  const wanted = entrypoints.map(entrypointPath)
  const missing = entrypoints.filter(
    (_, i) => !found.some((c) => startsWith(c.target.path, wanted[i] as string[])),
  )
  if (missing.length > 0) {
    process.stderr.write(`regent: no rule found for entrypoint ${missing.join(', ')}\n`)
    process.exitCode = 1
    return
  }
  const selected = found.filter((c) => wanted.some((w) => startsWith(c.target.path, w)))
  const files = new Map<string, Candidate[]>()
  for (const c of selected) files.set(c.file, [...(files.get(c.file) ?? []), c])
  const clashes = [...files.keys()].map(testFileFor).filter((f) => existsSync(f))
  if (clashes.length > 0 && !options.force) {
    process.stderr.write(`regent: ${clashes.join(', ')} already exists (use -f to overwrite)\n`)
    process.exitCode = 1
    return
  }
  for (const [file, rules] of files) {
    const text = testFileHeader(rules[0]!.module, file, 'test bootstrap') + groupsText(rules)
    await writeChecked(testFileFor(file), text)
    log(options, 'info', `wrote ${testFileFor(file)} (${rules.length * 3} tests)`)
  }
}

/** One group per rule body; bodies of the same rule are numbered in source order. */
function groupsText(rules: Candidate[]): string {
  const counts = new Map<string, number>()
  for (const c of rules) counts.set(c.target.ref, (counts.get(c.target.ref) ?? 0) + 1)
  const seen = new Map<string, number>()
  return rules
    .map((c) => {
      const n = (seen.get(c.target.ref) ?? 0) + 1
      seen.set(c.target.ref, n)
      const base = testNamePart(c.target.path.slice(c.target.path.length - ruleDepth(c)).join('_'))
      return testGroup(
        (counts.get(c.target.ref) ?? 0) > 1 ? `${base}_${n}` : base,
        c.target,
        inputShape(c.rule),
      )
    })
    .join('\n')
}

/** How many parts of the target path belong to the rule (not the package). */
function ruleDepth(c: Candidate): number {
  return c.target.path.length - (c.module.package.path.length - 1)
}

/** Writes a generated file after checking that it parses: a generator bug must not leave a broken file. */
async function writeChecked(file: string, text: string): Promise<void> {
  parseModule(text, { file, regoVersion: 'v1' })
  await writeFile(file, text)
}

/** Whether a rule carries the annotation: its METADATA `title` or `custom.test-bootstrap-name`. */
function annotated(rule: Rule, name: string): boolean {
  return (rule.annotations ?? []).some((a) => a.title === name || a.custom?.['test-bootstrap-name'] === name)
}

const blockStart = (name: string) => `# regent test new: ${name}\n`
const blockEnd = (name: string) => `# end regent test new: ${name}\n`

/** The work of `test new` (declared in test-generate-commands.ts). */
export async function runTestNew(
  annotation: string,
  options: GenerateOptions,
  command: Command,
): Promise<void> {
  noticeServiceFlags(command)
  const found = await loadCandidates(options)
  if (found === undefined) return
  const under = (options.entrypoint ?? []).map(entrypointPath)
  const selected = found.filter(
    (c) =>
      annotated(c.rule, annotation) &&
      (under.length === 0 || under.some((u) => startsWith(c.target.path, u))),
  )
  if (selected.length === 0) {
    process.stderr.write(
      `regent: no rule annotated ${JSON.stringify(annotation)} (METADATA title or custom.test-bootstrap-name)\n`,
    )
    process.exitCode = 1
    return
  }
  const files = new Map<string, Candidate[]>()
  for (const c of selected) files.set(c.file, [...(files.get(c.file) ?? []), c])
  const edits: Array<[string, string]> = []
  for (const [file, rules] of files) {
    const target = testFileFor(file)
    const base = testNamePart(annotation)
    const groups = rules
      .map((c, i) => testGroup(rules.length > 1 ? `${base}_${i + 1}` : base, c.target, inputShape(c.rule)))
      .join('\n')
    const block = `${blockStart(annotation)}${groups}${blockEnd(annotation)}`
    const existing = existsSync(target) ? await readFile(target, 'utf8') : undefined
    if (existing === undefined) {
      edits.push([target, testFileHeader(rules[0]!.module, file, 'test new') + block])
      continue
    }
    const start = existing.indexOf(blockStart(annotation))
    const end = existing.indexOf(blockEnd(annotation), start)
    if (start >= 0 && !options.force) {
      process.stderr.write(
        `regent: ${target} already has tests for ${JSON.stringify(annotation)} (use -f to replace them)\n`,
      )
      process.exitCode = 1
      return
    }
    edits.push([
      target,
      start >= 0 && end >= 0
        ? existing.slice(0, start) + block + existing.slice(end + blockEnd(annotation).length)
        : `${existing.replace(/\n*$/, '\n\n')}${block}`,
    ])
  }
  for (const [file, text] of edits) {
    await writeChecked(file, text)
    log(options, 'info', `wrote ${file}`)
  }
}

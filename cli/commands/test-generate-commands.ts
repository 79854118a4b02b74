/**
 * The declarations of `regent test bootstrap` and `regent test new` (arguments, flags, help). The
 * generation itself (test-generate.ts and cli/test-stubs/) loads only when one of them runs, so that
 * a plain `regent test` does not load it.
 */
import { Command } from 'commander'
import { collect } from '../query-options.js'
import { type GenerateOptions, withGenerateOptions } from '../test-stubs/generate-options.js'

/** Builds `test bootstrap`. */
export function testBootstrapCommand(): Command {
  return withGenerateOptions(
    new Command('bootstrap')
      .description('generate <file>_test.rego stubs for the rules of the given entrypoints')
      .argument('<entrypoint...>', 'rules or packages to test: authz/allow, data.authz.allow, authz')
      .option('-f, --force', 'overwrite existing test files'),
  ).action(async (entrypoints: string[], options: GenerateOptions, command: Command) => {
    const { runTestBootstrap } = await import('./test-generate.js')
    await runTestBootstrap(entrypoints, options, command)
  })
}

/** Builds `test new`. */
export function testNewCommand(): Command {
  return withGenerateOptions(
    new Command('new')
      .description(
        'add a test group for the rule whose METADATA title (or custom test-bootstrap-name) is <annotation>',
      )
      .argument('<annotation>', 'the annotated name of the rule')
      .option('-e, --entrypoint <path>', 'only look under this entrypoint (repeatable)', collect, [])
      .option('-f, --force', 'replace a group this command generated before for the same annotation'),
  ).action(async (annotation: string, options: GenerateOptions, command: Command) => {
    const { runTestNew } = await import('./test-generate.js')
    await runTestNew(annotation, options, command)
  })
}

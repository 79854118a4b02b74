/**
 * `regent bundle convert <in> <out>` and `regent bundle dump <path>`: the reference tool's binary
 * bundle (its `data.json` in binary JSON; layout in core/bundle/binary-json-write.ts). Converted
 * bundles load in `run -s -b`, `eval -b` and the relay like any tarball, and move to and from the
 * reference tool. Errors exit 1, as the reference's do.
 */
import { readFile, stat, writeFile } from 'node:fs/promises'
import { Command } from 'commander'
import { binaryBundleData, readBundle, toBinaryBundle } from '../../core/bundle/index.js'

/** Builds `bundle` with its `convert` and `dump` subcommands. */
export function bundleCommand(): Command {
  const bundle = new Command('bundle').description('binary bundles: convert and dump')
  bundle.addCommand(
    new Command('convert')
      .description('convert a bundle (tarball or directory) to a binary bundle')
      .argument('<in>', 'bundle to convert: a .tar.gz file or a directory')
      .argument('<out>', 'path of the binary bundle to write')
      .action(async (input: string, output: string) => {
        await guarded(async () => {
          const result = await toBinaryBundle(await readInput(input))
          if (result.droppedSignatures)
            process.stderr.write('warn: signatures get dropped in bundle conversion\n')
          if (result.droppedFiles.length > 0) {
            process.stderr.write(
              `warn: files dropped in bundle conversion: ${result.droppedFiles.join(', ')}\n`,
            )
          }
          await writeFile(output, result.bytes)
        })
      }),
  )
  bundle.addCommand(
    new Command('dump')
      .description('print the data of a binary bundle as JSON')
      .argument('<path>', 'binary bundle (.tar.gz)')
      .action(async (path: string) => {
        await guarded(async () => {
          process.stdout.write(`${binaryBundleData(await readInput(path))}\n`)
        })
      }),
  )
  return bundle
}

async function readInput(path: string) {
  const info = await stat(path)
  return readBundle(info.isDirectory() ? { dir: path } : await readFile(path))
}

async function guarded(run: () => Promise<void>): Promise<void> {
  try {
    await run()
  } catch (err) {
    process.stderr.write(`error: ${(err as Error).message}\n`)
    process.exitCode = 1
  }
}

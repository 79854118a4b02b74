/**
 * How every command prints its options in `--help`: each option shows one default. commander
 * appends `(default: …)` to any option with a default value; an option whose description already
 * states its default (because the real default is computed, e.g. `(default localhost:8181)` or a
 * config key) keeps only its own, and a repeatable flag's empty list (`(default: [])`) is shown as
 * nothing, since "none given" is not a default a user can act on.
 */
import { Help, type Option } from 'commander'

/** A description that says its default itself: `(default …`, `; default …`, `, default …`. */
export const STATES_DEFAULT = /[(;,]\s*default\b/gi

function withoutDefault(option: Option): Option {
  return Object.assign(Object.create(Object.getPrototypeOf(option) as object) as Option, option, {
    defaultValue: undefined,
  })
}

/** commander's `configureHelp` settings for every command (see cli/program.ts). */
export const ONE_DEFAULT_HELP: Partial<Help> = {
  optionDescription(this: Help, option: Option): string {
    const ownDefault = new RegExp(STATES_DEFAULT.source, 'i').test(option.description)
    const emptyList = Array.isArray(option.defaultValue) && option.defaultValue.length === 0
    const shown = ownDefault || emptyList ? withoutDefault(option) : option
    return Help.prototype.optionDescription.call(this, shown)
  },
}

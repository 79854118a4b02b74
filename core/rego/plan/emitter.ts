/**
 * The planner's output buffer: the string and file tables of `static`, the locals of the function
 * being planned, and the block statements are appended to. Nested blocks (scans, negations,
 * comprehensions, rule bodies) are opened with `nested`, which is how continuation-passing
 * planning places the rest of a body inside the loop that binds its variables.
 */
import type { Location } from '../syntax/ast.js'
import {
  type Block,
  type BuiltinFunc,
  FIRST_FREE_LOCAL,
  type Local,
  type Operand,
  type Stmt,
  type StmtFields,
  type StmtType,
  type StringConst,
} from './ir.js'

/** Local operand. */
export function local(value: Local): Operand {
  return { type: 'local', value }
}

/** Boolean operand. */
export function bool(value: boolean): Operand {
  return { type: 'bool', value }
}

/** Static tables and the current function's block and locals. */
export class Emitter {
  readonly #strings = new Map<string, number>()
  readonly #files = new Map<string, number>()
  readonly builtins = new Map<string, BuiltinFunc>()
  #block: Stmt[] = []
  #nextLocal = FIRST_FREE_LOCAL
  /** Where the statements being emitted come from (the expression being planned). */
  location: Location | undefined

  /** The `static` object of the policy. */
  static(): { strings: StringConst[]; builtin_funcs: BuiltinFunc[]; files: StringConst[] } {
    const byName = [...this.builtins.values()].sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    )
    return {
      strings: [...this.#strings.keys()].map((value) => ({ value })),
      builtin_funcs: byName,
      files: [...this.#files.keys()].map((value) => ({ value })),
    }
  }

  /** Index of `s` in `static.strings` (added on first use). */
  stringIndex(s: string): number {
    let i = this.#strings.get(s)
    if (i === undefined) {
      i = this.#strings.size
      this.#strings.set(s, i)
    }
    return i
  }

  /** A string constant operand. */
  string(s: string): Operand {
    return { type: 'string_index', value: this.stringIndex(s) }
  }

  /** Starts a new function or plan: locals restart after input, data and `reserved` parameters. */
  startFunction(reserved = 0): void {
    this.#nextLocal = FIRST_FREE_LOCAL + reserved
    this.#block = []
  }

  /** A fresh local. */
  newLocal(): Local {
    return this.#nextLocal++
  }

  /** Appends a statement to the current block, positioned at the current location. */
  emit<T extends StmtType>(type: T, fields: StmtFields[T]): void {
    const loc = this.location
    const position = loc
      ? { file: this.file(loc.file), row: loc.row, col: loc.col }
      : { file: 0, row: 0, col: 0 }
    this.#block.push({ type, stmt: { ...fields, ...position } } as Stmt)
  }

  /** The block statements are appended to now (compared by identity to tell nesting apart). */
  get currentBlock(): readonly Stmt[] {
    return this.#block
  }

  /** Runs `fill` with a fresh current block and returns it; the outer block is restored. */
  nested(fill: () => void): Block {
    const outer = this.#block
    this.#block = []
    try {
      fill()
      return { stmts: this.#block }
    } finally {
      this.#block = outer
    }
  }

  /** The operand as a local (constants are copied into a fresh one). */
  toLocal(op: Operand): Local {
    if (op.type === 'local') return op.value
    const target = this.newLocal()
    this.emit('AssignVarStmt', { source: op, target })
    return target
  }

  /** Index of `file` in `static.files` (added on first use). */
  file(file: string): number {
    let i = this.#files.get(file)
    if (i === undefined) {
      i = this.#files.size
      this.#files.set(file, i)
    }
    return i
  }
}

/**
 * OPA's intermediate representation (IR) as JSON: the shape `opa build -t plan` writes to
 * `/plan.json` (OPA's `v1/ir` types and their JSON encoding, documented at
 * https://www.openpolicyagent.org/docs/ir). Statements are `{type, stmt}` pairs whose `stmt` holds
 * the statement's fields plus the source position (`file` index, `row`, `col`); operands are
 * `{type: 'local' | 'bool' | 'string_index', value}`. Locals 0 and 1 are `input` and `data`.
 */

/** A local variable number. */
export type Local = number

/** The local holding `input` in every plan and function. */
export const INPUT_LOCAL: Local = 0
/** The local holding `data` in every plan and function. */
export const DATA_LOCAL: Local = 1
/** The first local a plan or function may allocate. */
export const FIRST_FREE_LOCAL: Local = 2

/** A statement operand: a local, a boolean constant, or an index into `static.strings`. */
export type Operand =
  | { type: 'local'; value: Local }
  | { type: 'bool'; value: boolean }
  | { type: 'string_index'; value: number }

/** Where a statement came from: index into `static.files`, 1-based row and column. */
export interface StmtPosition {
  file: number
  row: number
  col: number
}

/**
 * The statement types and their fields, as OPA's `ir` package names them (the JSON `type` is
 * the Go type name).
 */
export interface StmtFields {
  ArrayAppendStmt: { array: Local; value: Operand }
  AssignIntStmt: { value: number; target: Local }
  AssignVarOnceStmt: { source: Operand; target: Local }
  AssignVarStmt: { source: Operand; target: Local }
  BlockStmt: { blocks: Block[] }
  BreakStmt: { index: number }
  CallStmt: { func: string; args: Operand[]; result: Local }
  DotStmt: { source: Operand; key: Operand; target: Local }
  EqualStmt: { a: Operand; b: Operand }
  IsArrayStmt: { source: Operand }
  IsDefinedStmt: { source: Local }
  IsObjectStmt: { source: Operand }
  IsSetStmt: { source: Operand }
  IsUndefinedStmt: { source: Local }
  LenStmt: { source: Operand; target: Local }
  MakeArrayStmt: { capacity: number; target: Local }
  MakeNullStmt: { target: Local }
  MakeNumberIntStmt: { value: number; target: Local }
  MakeNumberRefStmt: { Index: number; target: Local }
  MakeObjectStmt: { target: Local }
  MakeSetStmt: { target: Local }
  NopStmt: Record<string, never>
  NotEqualStmt: { a: Operand; b: Operand }
  NotStmt: { block: Block }
  ObjectInsertOnceStmt: { key: Operand; value: Operand; object: Local }
  ObjectInsertStmt: { key: Operand; value: Operand; object: Local }
  ObjectMergeStmt: { a: Local; b: Local; target: Local }
  ResetLocalStmt: { target: Local }
  ResultSetAddStmt: { value: Local }
  ReturnLocalStmt: { source: Local }
  ScanStmt: { source: Local; key: Local; value: Local; block: Block }
  SetAddStmt: { value: Operand; set: Local }
  WithStmt: { local: Local; path: number[]; value: Operand; block: Block }
}

/** A statement type name. */
export type StmtType = keyof StmtFields

/** One statement as JSON. */
export type Stmt = {
  [T in StmtType]: { type: T; stmt: StmtFields[T] & StmtPosition }
}[StmtType]

/** A sequence of statements, run until one is undefined (see the IR docs' "Block Execution"). */
export interface Block {
  stmts: Stmt[]
}

/** A string constant of `static.strings` or a file name of `static.files`. */
export interface StringConst {
  value: string
}

/** A built-in the environment must provide, with its type declaration (capabilities form). */
export interface BuiltinFunc {
  name: string
  decl: Record<string, unknown>
}

/** An entrypoint: its blocks add `{"result": value}` objects to the result set. */
export interface Plan {
  name: string
  blocks: Block[]
}

/** A function: a rule set or user function; params are input, data, then the arguments. */
export interface Func {
  name: string
  params: Local[]
  return: Local
  blocks: Block[]
  path: string[]
}

/** The root of `/plan.json`. */
export interface Policy {
  static: { strings: StringConst[]; builtin_funcs: BuiltinFunc[]; files: StringConst[] }
  plans: { plans: Plan[] }
  funcs: { funcs: Func[] }
}

/** The statement type names, for schema checks. */
export const STMT_TYPES: readonly StmtType[] = [
  'ArrayAppendStmt',
  'AssignIntStmt',
  'AssignVarOnceStmt',
  'AssignVarStmt',
  'BlockStmt',
  'BreakStmt',
  'CallStmt',
  'DotStmt',
  'EqualStmt',
  'IsArrayStmt',
  'IsDefinedStmt',
  'IsObjectStmt',
  'IsSetStmt',
  'IsUndefinedStmt',
  'LenStmt',
  'MakeArrayStmt',
  'MakeNullStmt',
  'MakeNumberIntStmt',
  'MakeNumberRefStmt',
  'MakeObjectStmt',
  'MakeSetStmt',
  'NopStmt',
  'NotEqualStmt',
  'NotStmt',
  'ObjectInsertOnceStmt',
  'ObjectInsertStmt',
  'ObjectMergeStmt',
  'ResetLocalStmt',
  'ResultSetAddStmt',
  'ReturnLocalStmt',
  'ScanStmt',
  'SetAddStmt',
  'WithStmt',
]

import type * as TreeSitter from '@vscode/tree-sitter-wasm';
import { parserFor } from '../guard/syntax';
import { languageOf } from '../guard/languages';

/**
 * The definitions of one source file (a tags pass): functions, methods, classes, interfaces, types, enums, structs,
 * traits, modules and constants, each with its name, the name of the definition it sits in (`Pool` for
 * `Pool.acquire`) and its 1-based line range. Parsed with the tree-sitter grammars the guard ships; files of
 * languages without a grammar have no definitions (their names are then simply not anchors).
 */

export interface Definition {
  name: string;
  container?: string;
  startLine: number;
  endLine: number;
}

/** Node types that define a name in the shipped grammars (matched on the type, then read through its `name` field). */
const DEFINING = new Set([
  'function_declaration', 'generator_function_declaration', 'method_definition', 'class_declaration', 'abstract_class_declaration',
  'interface_declaration', 'type_alias_declaration', 'enum_declaration', 'module', 'internal_module',
  'function_definition', 'class_definition', // python
  'method_declaration', 'type_spec', 'const_spec', // go (+ java method_declaration)
  'function_item', 'struct_item', 'enum_item', 'trait_item', 'const_item', 'static_item', 'mod_item', 'type_item', 'union_item', // rust
  'constructor_declaration', 'record_declaration', 'annotation_type_declaration', 'struct_declaration', 'namespace_declaration', // java, c#
  'method', 'singleton_method', 'class', // ruby
  'public_field_definition', 'abstract_method_signature', 'method_signature',
]);

export function hasGrammar(path: string): boolean {
  return languageOf(path).grammar !== undefined;
}

/** Files longer than this are not parsed for symbols (generated code, bundles): their names are not anchors. */
export const MAX_SOURCE_BYTES = 1024 * 1024;

let parses = 0;
/** How many files this process has parsed for definitions (the cache test and the bench read it). */
export function definitionParses(): number {
  return parses;
}

export async function definitionsOf(path: string, source: string): Promise<Definition[]> {
  const grammar = languageOf(path).grammar;
  if (!grammar || source.length > MAX_SOURCE_BYTES) return [];
  parses++;
  let parser: TreeSitter.Parser;
  try {
    parser = await parserFor(grammar);
  } catch {
    return [];
  }
  const tree = parser.parse(source);
  if (!tree) return [];
  try {
    const out: Definition[] = [];
    walk(tree.rootNode, undefined, out);
    return out;
  } finally {
    tree.delete();
  }
}

function walk(node: TreeSitter.Node, container: string | undefined, out: Definition[]): void {
  let inner = container;
  const def = definitionName(node);
  if (def) {
    out.push({ name: def, container, startLine: node.startPosition.row + 1, endLine: node.endPosition.row + 1 });
    inner = def;
  }
  const n = node.namedChildCount;
  for (let i = 0; i < n; i++) {
    const child = node.namedChild(i);
    if (child) walk(child, inner, out);
  }
}

function definitionName(node: TreeSitter.Node): string | undefined {
  const t = node.type;
  if (DEFINING.has(t)) return nameOf(node.childForFieldName('name'));
  // `const acquire = () => …`, `export const MAX = 3`: a declarator of a `const` (or any function-valued one).
  if (t === 'variable_declarator') {
    const decl = node.parent;
    const isConst = decl?.type === 'lexical_declaration' && decl.text.startsWith('const');
    const value = node.childForFieldName('value')?.type ?? '';
    const topLevel = decl?.parent?.type === 'program' || decl?.parent?.type === 'export_statement';
    if ((isConst && topLevel) || /function|arrow_function|class/.test(value)) return nameOf(node.childForFieldName('name'));
  }
  // Python module constants: `MAX_RETRIES = 3` at the top level.
  if (t === 'assignment' && node.parent?.type === 'expression_statement' && node.parent.parent?.type === 'module') {
    const left = node.childForFieldName('left');
    if (left?.type === 'identifier' && /^[A-Z][A-Z0-9_]+$/.test(left.text)) return left.text;
  }
  return undefined;
}

function nameOf(n: TreeSitter.Node | null): string | undefined {
  if (!n) return undefined;
  const text = n.text;
  return /^[A-Za-z_$][\w$]*$/.test(text) ? text : undefined;
}

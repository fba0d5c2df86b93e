// The error classes of a set of source files and the codes they carry, read by the TypeScript
// checker rather than by pattern: a class counts as an error when Error is among its ancestors
// however far up (`extends WebhookApiError`, `extends TypeError`), and its code is whatever type its
// `code` property has there, declared on it or inherited (a literal, a union of a catalog's keys).
import { readFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import ts from 'typescript';

/** An error class as declared, with its code's literal values, or why none could be read. */
export interface ErrorClass {
  /** The file, relative to the root given. */
  readonly file: string;
  readonly className: string;
  /** Every value `code` may take; empty when the class has no code or one that is no string literal. */
  readonly codes: readonly string[];
  /** What `code` is when it is no string literal (`string`, `status`, missing). */
  readonly problem?: string;
}

/** UPPER_SNAKE: capitals and digits, words joined by one underscore; no `ERR_` prefix, Node's own mark. */
export const upperSnake = /^(?!ERR_)[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/;

function compilerOptions(tsconfig: string): ts.CompilerOptions {
  const { config } = ts.parseConfigFileTextToJson(tsconfig, readFileSync(tsconfig, 'utf8')) as { config: unknown };
  return ts.parseJsonConfigFileContent(config, ts.sys, dirname(tsconfig)).options;
}

function isErrorType(program: ts.Program, type: ts.Type, seen = new Set<ts.Type>()): boolean {
  if (seen.has(type)) return false;
  seen.add(type);
  const checker = program.getTypeChecker();
  const symbol = type.getSymbol();
  // The lib's Error, not some class of that name.
  if (symbol?.getName() === 'Error' && symbol.getDeclarations()?.some((d) => program.isSourceFileDefaultLibrary(d.getSourceFile()))) return true;
  if (
    !(type.flags & ts.TypeFlags.Object) ||
    !((type as ts.ObjectType).objectFlags & (ts.ObjectFlags.Class | ts.ObjectFlags.Interface | ts.ObjectFlags.Reference))
  )
    return false;
  const target = (type as ts.ObjectType).objectFlags & ts.ObjectFlags.Reference ? (type as ts.TypeReference).target : type;
  return checker.getBaseTypes(target as ts.InterfaceType).some((base) => isErrorType(program, base, seen));
}

function codesOf(checker: ts.TypeChecker, type: ts.Type, where: ts.Node): { codes: string[]; problem?: string } {
  const property = checker.getPropertyOfType(type, 'code');
  if (!property) return { codes: [], problem: 'no code' };
  const codeType = checker.getTypeOfSymbolAtLocation(property, where);
  const members = codeType.isUnion() ? codeType.types : [codeType];
  const literals = members.filter((member) => member.isStringLiteral());
  if (literals.length < members.length) return { codes: [], problem: `code is ${checker.typeToString(codeType)}` };
  return { codes: literals.map((member) => member.value).sort() };
}

/** Every class of `files` (absolute paths) that extends Error, with its codes; `tsconfig` gives the compiler options. */
export function errorClassesOf(files: readonly string[], tsconfig: string, root: string): ErrorClass[] {
  const program = ts.createProgram(files, compilerOptions(tsconfig));
  const checker = program.getTypeChecker();
  const found: ErrorClass[] = [];
  for (const file of files) {
    const source = program.getSourceFile(file);
    if (!source) throw new Error(`${file} is not in the program`);
    const visit = (node: ts.Node): void => {
      if ((ts.isClassDeclaration(node) || ts.isClassExpression(node)) && node.heritageClauses) {
        const symbol = node.name ? checker.getSymbolAtLocation(node.name) : undefined;
        const type = symbol ? checker.getDeclaredTypeOfSymbol(symbol) : checker.getTypeAtLocation(node);
        if (isErrorType(program, type)) {
          const className = node.name?.text ?? '(anonymous class)';
          found.push({ file: relative(root, file), className, ...codesOf(checker, type, node) });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

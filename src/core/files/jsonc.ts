/** JSON as VS Code's own settings files are written: comments and trailing commas allowed. */
import * as jsonc from 'jsonc-parser';

/**
 * JSON with comments and trailing commas (as in `.vscode/mcp.json` and the managed settings file) to a value, with `jsonc-parser`, the parser VS Code
 * itself reads its settings files with. Anything else that is not JSON throws a SyntaxError naming what and where.
 */
export function parseJsonc(text: string): unknown {
  const errors: jsonc.ParseError[] = [];
  const value = jsonc.parse(text, errors, { allowTrailingComma: true, disallowComments: false }) as unknown;
  const first = errors[0];
  if (first) {
    throw new SyntaxError(`${jsonc.printParseErrorCode(first.error)} at offset ${String(first.offset)}`);
  }
  return value;
}

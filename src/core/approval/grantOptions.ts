/**
 * The grant scopes a person is offered for a call that asks, narrowest first: each an id the person's choice names
 * and the matcher the grant gets. How a card names them is the views' (src/core/views/grantOptionLabels.ts).
 */
import path from 'node:path';
import { builtinTools, isBuiltinTool } from '../toolDefinitions';
import type { GrantMatcher } from './grants';
import type { GateCall } from './policy';

export interface GrantOption {
  id: string;
  matcher: GrantMatcher;
}

/** The grant scopes offered for a call, narrowest first. */
export function grantOptions(call: GateCall): GrantOption[] {
  const options: GrantOption[] = [
    { id: 'exact', matcher: { kind: 'exact', argsHash: call.argsHash } },
  ];
  const builtin = isBuiltinTool(call.tool) ? builtinTools[call.tool] : undefined;
  const relative = call.target?.relative;
  if (builtin?.risk === 'write' && relative !== undefined && relative !== '') {
    options.push({ id: 'path', matcher: { kind: 'path', path: relative } });
    const folder = path.posix.dirname(relative);
    if (folder !== '.') {
      options.push({ id: 'folder', matcher: { kind: 'glob', glob: `${folder}/**` } });
    }
  }
  if (call.tool === 'run_in_terminal') {
    // Word prefixes only for a line that is one static command; never a grant for every command.
    const only = call.commandAnalysis?.commands.length === 1 ? call.commandAnalysis.commands[0] : undefined;
    if (only && !only.dynamic && only.words.length > 0) {
      const words = only.words;
      options.push({ id: 'cmd-full', matcher: { kind: 'command', prefix: words.join(' ') } });
      for (let count = Math.min(words.length - 1, 3); count >= 1; count--) {
        options.push({ id: `cmd-${count}`, matcher: { kind: 'command', prefix: words.slice(0, count).join(' ') } });
      }
    }
    return options;
  }
  options.push({ id: 'tool', matcher: { kind: 'tool' } });
  if (call.external?.server !== undefined) {
    options.push({ id: 'server', matcher: { kind: 'server', server: call.external.server } });
  }
  return options;
}

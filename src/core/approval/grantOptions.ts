/** The grant scopes a person is offered for a call that asks, narrowest first. */
import path from 'node:path';
import { builtinTools, isBuiltinTool } from '../toolDefinitions';
import type { GrantMatcher } from './grants';
import type { GateCall } from './policy';

export interface GrantOption {
  id: string;
  label: string;
  matcher: GrantMatcher;
}

/** The grant scopes offered for a call, narrowest first. */
export function grantOptions(call: GateCall): GrantOption[] {
  const options: GrantOption[] = [
    { id: 'exact', label: 'this exact call', matcher: { kind: 'exact', argsHash: call.argsHash } },
  ];
  const builtin = isBuiltinTool(call.tool) ? builtinTools[call.tool] : undefined;
  const relative = call.target?.relative;
  if (builtin?.risk === 'write' && relative !== undefined && relative !== '') {
    options.push({ id: 'path', label: `this file: ${relative}`, matcher: { kind: 'path', path: relative } });
    const folder = path.posix.dirname(relative);
    if (folder !== '.') {
      options.push({ id: 'folder', label: `files in ${folder}/**`, matcher: { kind: 'glob', glob: `${folder}/**` } });
    }
  }
  if (call.tool === 'run_in_terminal') {
    // Word prefixes only for a line that is one static command; never a grant for every command.
    const only = call.commandAnalysis?.commands.length === 1 ? call.commandAnalysis.commands[0] : undefined;
    if (only && !only.dynamic && only.words.length > 0) {
      const words = only.words;
      options.push({
        id: 'cmd-full',
        label: `commands starting with \`${words.join(' ')}\``,
        matcher: { kind: 'command', prefix: words.join(' ') },
      });
      for (let count = Math.min(words.length - 1, 3); count >= 1; count--) {
        const prefix = words.slice(0, count).join(' ');
        options.push({
          id: `cmd-${count}`,
          label: `commands starting with \`${prefix}\``,
          matcher: { kind: 'command', prefix },
        });
      }
    }
    return options;
  }
  options.push({
    id: 'tool',
    label: `every ${call.external?.label ?? call.tool} call`,
    matcher: { kind: 'tool' },
  });
  if (call.external?.server !== undefined) {
    options.push({
      id: 'server',
      label: `every tool of the MCP server ${call.external.server}`,
      matcher: { kind: 'server', server: call.external.server },
    });
  }
  return options;
}

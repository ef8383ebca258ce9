/** The grant scopes offered for a waiting call (../approval/grantOptions.ts), as its card's menu names them. */
import type { GrantOptionView } from '../../shared/approvals';
import type { GrantOption } from '../approval/grantOptions';
import type { GateCall } from '../approval/policy';

/** One option as the menu names it: "this file: src/a.ts", "commands starting with `npm test`". */
export function grantOptionLabel(call: Pick<GateCall, 'tool' | 'external'>, option: GrantOption): string {
  const matcher = option.matcher;
  switch (matcher.kind) {
    case 'exact':
      return 'this exact call';
    case 'path':
      return `this file: ${matcher.path}`;
    case 'glob':
      return `files in ${matcher.glob}`;
    case 'command':
      return `commands starting with \`${matcher.prefix}\``;
    case 'tool':
      return `every ${call.external?.label ?? call.tool} call`;
    case 'server':
      return `every tool of the MCP server ${matcher.server}`;
  }
}

/** The options of a call's grant menu, narrowest first. */
export function grantOptionViews(call: Pick<GateCall, 'tool' | 'external'>, options: readonly GrantOption[]): GrantOptionView[] {
  return options.map((option) => ({ id: option.id, label: grantOptionLabel(call, option) }));
}

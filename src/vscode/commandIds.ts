/** The commands Toolgate contributes (package.json), registered at activation by src/extension.ts. */
export const commandIds = [
  'toolgate.runTask',
  'toolgate.openApprovals',
  'toolgate.setApiKey',
  'toolgate.showAuditLog',
  'toolgate.resetWorkspaceApprovals',
  'toolgate.cancel',
  'toolgate.newChat',
  'toolgate.mcp.restart',
  'toolgate.mcp.stop',
  'toolgate.mcp.showOutput',
] as const;

export type CommandId = (typeof commandIds)[number];

/**
 * The undo commands (package.json contributes them): handled by `createUndoCommands` (undoCommands.ts). They join
 * `commandIds` once host.ts spreads that function's handlers into its `commands`.
 */
export const undoCommandIds = ['toolgate.undoTurn', 'toolgate.undoTask'] as const;
export type UndoCommandId = (typeof undoCommandIds)[number];

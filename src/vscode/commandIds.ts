/** The undo commands: handled by `createUndoCommands` (undoCommands.ts). */
export const undoCommandIds = ['toolgate.undoTurn', 'toolgate.undoTask'] as const;
export type UndoCommandId = (typeof undoCommandIds)[number];

/** The commands Toolgate contributes (package.json), registered at activation by src/extension.ts. */
export const commandIds = [
  'toolgate.runTask',
  'toolgate.openApprovals',
  'toolgate.setApiKey',
  'toolgate.showAuditLog',
  'toolgate.showAuditLogRaw',
  'toolgate.resetWorkspaceApprovals',
  'toolgate.cancel',
  'toolgate.newChat',
  'toolgate.mcp.restart',
  'toolgate.mcp.stop',
  'toolgate.mcp.showOutput',
  'toolgate.allowOnce',
  'toolgate.deny',
  'toolgate.focusPrompt',
  'toolgate.showSuggestions',
  ...undoCommandIds,
] as const;

export type CommandId = (typeof commandIds)[number];

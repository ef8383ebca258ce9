/** The undo commands: handled by `createUndoCommands` (src/core/checkpoints/undoCommands.ts, wired in src/vscode/undo/undoCommands.ts). */
export const undoCommandIds = ['toolgate.undoTurn', 'toolgate.undoTask'] as const;
export type UndoCommandId = (typeof undoCommandIds)[number];

/** The native diff editor's actions: handled by `createDiffCommands` (src/vscode/diffEditor/diffActions.ts). */
export const diffCommandIds = ['toolgate.diff.allow', 'toolgate.diff.deny', 'toolgate.diff.edit', 'toolgate.diff.acceptHunk', 'toolgate.diff.rejectHunk'] as const;
export type DiffCommandId = (typeof diffCommandIds)[number];

/** The commands Toolgate contributes (package.json), registered at activation by src/extension.ts. */
export const commandIds = [
  'toolgate.runTask',
  'toolgate.openApprovals',
  'toolgate.setApiKey',
  'toolgate.setUpModel',
  'toolgate.showAuditLog',
  'toolgate.showAuditLogRaw',
  'toolgate.resetWorkspaceApprovals',
  'toolgate.cancel',
  'toolgate.newChat',
  'toolgate.mcp.restart',
  'toolgate.mcp.stop',
  'toolgate.mcp.showOutput',
  'toolgate.copyMcpEndpointConfig',
  'toolgate.allowOnce',
  'toolgate.deny',
  'toolgate.focusPrompt',
  'toolgate.showSuggestions',
  'toolgate.openSettings',
  'toolgate.showStagedChanges',
  'toolgate.showTaskChanges',
  'toolgate.showSandboxPolicy',
  'toolgate.setAuditExportHeaders',
  ...undoCommandIds,
  ...diffCommandIds,
] as const;

export type CommandId = (typeof commandIds)[number];

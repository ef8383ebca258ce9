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

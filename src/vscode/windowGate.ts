/**
 * Builds the gate for this window: grants in workspace state, the policy context from settings, Workspace Trust and
 * the workspace folders, and the audit log file under the extension's workspace storage.
 */
import { appendFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import * as vscode from 'vscode';
import { Gate } from '../core/approval/gate';
import { GrantStore } from '../core/approval/grants';
import { realpathOfNearest } from '../core/approval/paths';
import type { PolicyContext } from '../core/approval/policy';
import { AuditLog, type AuditEntry } from '../core/audit/auditLog';
import { closeLeftWaiting } from '../core/audit/leftWaiting';
import type { CommandSandbox } from '../core/sandbox/commandSandbox';
import type { ManagedPolicy } from '../core/managed/managedSettings';
import type { DisposableStore } from '../core/disposable';
import { protectedPathsWith } from '../core/settings';
import { MirroredWorkspaceState } from '../core/storage/mirroredState';
import type { Log } from './log';
import type { Settings } from './settings';
import type { WorkspacePaths } from './workspacePaths';

export interface GateParts {
  gate: Gate;
  /** Workspace state mirrored to a file in workspace storage (grants and chats live here). */
  state: MirroredWorkspaceState;
  grants: GrantStore;
  audit: AuditLog;
  auditFile: string;
  /** The policy as the settings, trust and folders give it now (without grants). */
  policy: () => Omit<PolicyContext, 'grants'>;
}

/** Where Toolgate keeps this workspace's files (audit log, mirrored state). */
function storageFolder(context: vscode.ExtensionContext): string {
  return (context.storageUri ?? context.globalStorageUri).fsPath;
}

export function createGateParts(
  context: vscode.ExtensionContext,
  settings: Settings,
  log: Log,
  paths: WorkspacePaths,
  sandbox: CommandSandbox,
  /** The managed settings file in force, and who hears of every decision (the API's onDidDecide). */
  { managed, onDecide }: { managed: () => ManagedPolicy | undefined; onDecide: (entry: AuditEntry) => void },
  /** The window's store: the gate is disposed with it. */
  disposables: DisposableStore,
): GateParts {
  const storage = storageFolder(context);
  const auditFile = path.join(storage, 'audit.jsonl');
  const audit = new AuditLog(
    {
      append: async (lines) => {
        await mkdir(storage, { recursive: true });
        await appendFile(auditFile, lines, 'utf8');
      },
    },
    (line) => log.info(line),
    (error) => log.error(`could not write the audit log ${auditFile}: ${String(error)}`),
  );
  disposables.add(audit.onDidRecord(onDecide));
  void closeLeftWaiting(auditFile, audit, log);
  const state = new MirroredWorkspaceState(context.workspaceState, storage, (message) => log.warn(message));
  const grants = new GrantStore(state, (message) => log.warn(message));
  const forbidden = [context.globalStorageUri.fsPath, ...(context.storageUri ? [context.storageUri.fsPath] : [])].map(
    (folder) => realpathOfNearest(path.resolve(folder)),
  );
  const policy = (): Omit<PolicyContext, 'grants'> => ({
    gatedTools: settings.get('gatedTools'),
    editRules: settings.get('autoApprove.edits'),
    terminalRules: settings.get('autoApprove.terminal'),
    protectedPaths: protectedPathsWith(settings.get('protectedPaths')),
    trusted: vscode.workspace.isTrusted,
    forbiddenRoots: forbidden,
    sandbox: sandbox.status(),
    locate: (absolute) => paths.locate(absolute),
    managed: managed(),
  });
  const gate = disposables.add(new Gate({
    grants,
    audit,
    timeoutSeconds: () => settings.get('approval.timeoutSeconds'),
    maxConsecutive: () => settings.get('autoApprove.maxConsecutive'),
    policy,
  }));
  return { gate, grants, audit, auditFile, state, policy };
}

/**
 * Builds the gate for this window: grants in workspace state, the policy context from settings, Workspace Trust and
 * the workspace folders, and the audit log file under the extension's workspace storage.
 */
import { statSync } from 'node:fs';
import { appendFile, mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import * as vscode from 'vscode';
import { Gate } from '../core/approval/gate';
import { GrantStore } from '../core/approval/grants';
import { realpathOfNearest } from '../core/approval/paths';
import type { PolicyContext } from '../core/approval/policy';
import { AuditLog } from '../core/audit/auditLog';
import { recoveredEntries, recoveryTailBytes, unclosedAsks } from '../core/audit/recovery';
import type { CommandSandbox } from '../core/sandbox/commandSandbox';
import { defaultProtectedPaths } from '../core/settings';
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

/** The defaults are a floor: a settings file can add protected paths, never remove these. */
/** The built-in protected globs and the person's, one array per value of the setting (the policy compiles it once). */
const protectedLists = new WeakMap<readonly string[], readonly string[]>();
export const protectedPaths = (settings: Settings): readonly string[] => {
  const own = settings.get('protectedPaths');
  let list = protectedLists.get(own);
  if (list === undefined) {
    list = Object.freeze([...new Set([...defaultProtectedPaths, ...own])]);
    protectedLists.set(own, list);
  }
  return list;
};

/** Where Toolgate keeps this workspace's files (audit log, mirrored state). */
function storageFolder(context: vscode.ExtensionContext): string {
  return (context.storageUri ?? context.globalStorageUri).fsPath;
}

export function createGateParts(context: vscode.ExtensionContext, settings: Settings, log: Log, paths: WorkspacePaths, sandbox: CommandSandbox): GateParts {
  const storage = storageFolder(context);
  const auditFile = path.join(storage, 'audit.jsonl');
  const audit = new AuditLog(
    {
      append: async (line) => {
        await mkdir(storage, { recursive: true });
        await appendFile(auditFile, line, 'utf8');
      },
    },
    (line) => log.info(line),
    (error) => log.error(`could not write the audit log ${auditFile}: ${String(error)}`),
  );
  closeLeftWaiting(auditFile, audit, log);
  const state = new MirroredWorkspaceState(context.workspaceState, storage, (message) => log.warn(message));
  const grants = new GrantStore(state, (message) => log.warn(message));
  const forbidden = [context.globalStorageUri.fsPath, ...(context.storageUri ? [context.storageUri.fsPath] : [])].map(
    (folder) => realpathOfNearest(path.resolve(folder)),
  );
  const policy = (): Omit<PolicyContext, 'grants'> => ({
    gatedTools: settings.get('gatedTools'),
    editRules: settings.get('autoApprove.edits'),
    terminalRules: settings.get('autoApprove.terminal'),
    protectedPaths: protectedPaths(settings),
    trusted: vscode.workspace.isTrusted,
    forbiddenRoots: forbidden,
    sandbox: sandbox.status(),
    locate: (absolute) => paths.locate(absolute),
  });
  const gate = new Gate({
    grants,
    audit,
    timeoutSeconds: () => settings.get('approval.timeoutSeconds'),
    maxConsecutive: () => settings.get('autoApprove.maxConsecutive'),
    policy,
  });
  return { gate, grants, audit, auditFile, state, policy };
}

/**
 * Calls the log shows still waiting from an earlier window (reloaded, closed or crashed before their end was written)
 * are written as not run. Only what the file held before this window wrote to it is read: its size is taken now.
 */
function closeLeftWaiting(auditFile: string, audit: AuditLog, log: Log): void {
  let size: number;
  try {
    size = statSync(auditFile).size;
  } catch {
    return; // no log yet
  }
  const start = Math.max(0, size - recoveryTailBytes);
  void (async () => {
    const handle = await open(auditFile, 'r');
    try {
      const buffer = Buffer.alloc(size - start);
      await handle.read(buffer, 0, buffer.length, start);
      const lines = buffer.toString('utf8').split('\n');
      // A tail that starts mid-line drops that line.
      const asks = unclosedAsks(start > 0 ? lines.slice(1) : lines);
      for (const entry of recoveredEntries(asks, new Date())) {
        audit.record(entry);
      }
      if (asks.length > 0) {
        log.info(`closed ${asks.length} call(s) an earlier window left waiting in the audit log: not run`);
      }
    } finally {
      await handle.close();
    }
  })().catch((error: unknown) => log.warn(`could not check the audit log for calls left waiting: ${String(error)}`));
}

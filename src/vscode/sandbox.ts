/**
 * The command sandbox for this window: its policy from the same settings and folders the gate uses, plus the storage
 * of Toolgate and of VS Code itself (secrets, state of every extension), which no command may read.
 */
import path from 'node:path';
import type * as vscode from 'vscode';
import { CommandSandbox } from '../core/sandbox/commandSandbox';
import { probeSandbox } from '../core/sandbox/sandbox';
import { protectedPaths } from './gateParts';
import type { Log } from './log';
import type { Settings } from './settings';
import type { WorkspacePaths } from './workspacePaths';

export function createCommandSandbox(context: vscode.ExtensionContext, settings: Settings, log: Log, paths: WorkspacePaths): CommandSandbox {
  // globalStorageUri is <user data>/User/globalStorage/<extension>: the user data folder holds VS Code's state and
  // secrets store of every extension.
  const userData = path.dirname(path.dirname(path.dirname(context.globalStorageUri.fsPath)));
  const ownStorage = [userData, context.globalStorageUri.fsPath, ...(context.storageUri ? [context.storageUri.fsPath] : [])];
  return new CommandSandbox({
    probe: () => probeSandbox(),
    inputs: () => ({
      workspaceFolders: paths.resolver.realRoots,
      protectedGlobs: protectedPaths(settings),
      extraHidden: settings.get('sandbox.hiddenPaths'),
      extraWritable: settings.get('sandbox.writablePaths'),
      allowedDomains: settings.get('sandbox.allowedDomains'),
      ownStorage,
      network: 'none',
    }),
    log: (message) => log.info(message),
  });
}

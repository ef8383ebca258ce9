/**
 * The command sandbox for this window: its policy from the same settings and folders the gate uses, plus the storage
 * of Toolgate and of VS Code itself (secrets, state of every extension), which no command may read.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type * as vscode from 'vscode';
import { CommandSandbox } from '../../core/sandbox/commandSandbox';
import { probeSandbox } from '../../core/sandbox/sandbox';
import { findUnshare, probeStaging, sweepStages } from '../../core/sandbox/stage';
import { protectedPathsWith } from '../../core/settings';
import { sandboxInputsUnder } from '../../core/managed/managedCeilings';
import type { ManagedPolicy } from '../../core/managed/managedSettings';
import type { Log } from '../log';
import type { Settings } from '../settings';
import type { WorkspacePaths } from '../workspacePaths';

export function createCommandSandbox(context: vscode.ExtensionContext, settings: Settings, log: Log, paths: WorkspacePaths, managed: () => ManagedPolicy | undefined): CommandSandbox {
  // globalStorageUri is <user data>/User/globalStorage/<extension>: the user data folder holds VS Code's state and
  // secrets store of every extension.
  const userData = path.dirname(path.dirname(path.dirname(context.globalStorageUri.fsPath)));
  // Stages live in the person's cache folder (on the disk of most workspaces, so what lands is moved, not copied),
  // which the sandbox shows to no command: a command sees its stage only as the workspace.
  const stages = path.join(process.env['XDG_CACHE_HOME'] ?? path.join(os.homedir(), '.cache'), 'toolgate-stages');
  const ownStorage = [userData, context.globalStorageUri.fsPath, ...(context.storageUri ? [context.storageUri.fsPath] : []), stages];
  return new CommandSandbox({
    probe: () => probeSandbox(),
    staging: {
      parent: stages,
      unshare: findUnshare() ?? '/usr/bin/unshare',
      enabled: () => settings.get('sandbox.reviewCommandChanges'),
      probe: async () => {
        await fs.mkdir(stages, { recursive: true, mode: 0o700 });
        const swept = await sweepStages(stages);
        if (swept.length > 0) {
          log.info(`removed ${swept.length} stage(s) of commands whose window is gone; what they held never landed`);
        }
        return await probeStaging(findUnshare(), stages);
      },
    },
    inputs: () =>
      sandboxInputsUnder(
        {
          workspaceFolders: paths.resolver.realRoots,
          protectedGlobs: protectedPathsWith(settings.get('protectedPaths')),
          extraHidden: settings.get('sandbox.hiddenPaths'),
          extraWritable: settings.get('sandbox.writablePaths'),
          allowedDomains: settings.get('sandbox.allowedDomains'),
          ownStorage,
          network: 'none',
        },
        managed(),
        os.homedir(),
      ),
    log: (message) => log.info(message),
    passEnvironment: () => settings.get('sandbox.passEnvironment'),
  });
}

/**
 * The managed settings file in this window (src/core/managed/managedState.ts), its problems shown as notifications,
 * and the person's settings that it overrides (src/core/managed/managedOverrides.ts), each said once in the log and
 * together in one notification, when the window starts and whenever the file or the settings change.
 */
import os from 'node:os';
import * as vscode from 'vscode';
import { managedOverrides } from '../core/managed/managedOverrides';
import { baseUrlRefusal } from '../core/managed/managedCeilings';
import { managedReportSection, type ReportSection } from '../core/managed/managedReport';
import type { DisposableStore } from '../core/disposable';
import { ManagedState } from '../core/managed/managedState';
import { OverrideNotices } from '../core/managed/overrideNotices';
import { defaultGatedTools } from '../core/settings';
import type { Log } from './log';
import type { Settings } from './settings';

/** The window's managed settings, read now (before anything is judged); disposing it stops the watching. */
export function createManagedSettings(settings: Settings, log: Log, disposables: DisposableStore): ManagedState {
  const managed = disposables.add(new ManagedState({ log, warn: (message) => void vscode.window.showWarningMessage(message) }));
  disposables.add(watchManagedOverrides(managed, settings, log));
  return managed;
}

/** The person's settings the managed file overrides now, each with the managed value. */
export function currentOverrides(managed: Pick<ManagedState, 'policy'>, settings: Settings): string[] {
  const policy = managed.policy();
  if (policy === undefined) {
    return []; // no managed file (most windows): none of the eight settings is read at the window's start for nothing
  }
  return managedOverrides(
    policy,
    {
      terminalRules: settings.get('autoApprove.terminal'),
      editRules: settings.get('autoApprove.edits'),
      gatedTools: settings.get('gatedTools'),
      gatedByDefault: defaultGatedTools,
      allowedDomains: settings.get('sandbox.allowedDomains'),
      writablePaths: settings.get('sandbox.writablePaths'),
      provider: settings.get('model.provider'),
      baseUrl: settings.get('model.baseUrl'),
    },
    os.homedir(),
  );
}

/** Why the managed file refuses a model endpoint the model setup would test (nothing is sent to it), or undefined. */
export function modelRefusal(managed: Pick<ManagedState, 'policy'>): (baseUrl: string) => string | undefined {
  return (baseUrl) => baseUrlRefusal(baseUrl, managed.policy());
}

/** The managed file's section of the sandbox policy report, as things are now. */
export function managedReport(managed: ManagedState, settings: Settings): ReportSection {
  return managedReportSection(managed.state(), currentOverrides(managed, settings));
}

function watchManagedOverrides(managed: ManagedState, settings: Settings, log: Log): vscode.Disposable {
  const notices = new OverrideNotices();
  const check = (): void => {
    const { fresh, notification } = notices.told(currentOverrides(managed, settings));
    fresh.forEach((note) => log.warn(`managed settings override ${note}`));
    if (notification !== undefined) {
      void vscode.window.showWarningMessage(notification);
    }
  };
  check();
  const subscriptions = [managed.onDidChange(check), settings.onDidChange(check)];
  return new vscode.Disposable(() => subscriptions.forEach((subscription) => subscription.dispose()));
}

/**
 * What the person and the model are told where a command's changes land in the workspace without review (staging off
 * or unavailable here): on the status item, on each command's card, in the model's report, and when a command whose
 * card promised review cannot be staged at launch. Worded here from the sandbox's typed fact, never in a webview.
 */
import type { StagingStatus, UnstagedWhy } from '../sandbox/commandSandbox';

/** The setting that turns review of command changes on and off. */
export const reviewSetting = 'toolgate.sandbox.reviewCommandChanges';

/** What fixes each cause, where something does; the probe's own line says what happened. */
const fixes: Readonly<Record<UnstagedWhy, string | undefined>> = {
  'setting-off': 'Turn it on to review them.',
  apparmor:
    'To review them, let unshare make user namespaces: `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`, or an AppArmor profile for /usr/bin/unshare with `userns,`; then reload the window.',
  'no-unshare': "To review them, install util-linux's `unshare` and reload the window.",
  'overlay-refused': 'Review needs overlayfs in an unprivileged user namespace (Linux 5.11 or later).',
  'no-bwrap': undefined,
  // The staged path would not confine the command (capabilities kept, say): it runs in the plain sandbox instead.
  'does-not-hold': undefined,
  'folder-path': 'To review them, open the folder from a path without a comma, colon, backslash or line break.',
  'no-sandbox': undefined,
  'not-built': undefined,
  'probe-failed': undefined,
  // macOS: nothing to turn on; the reason says what Toolgate does instead.
  'no-overlay': undefined,
};

type Unstaged = Extract<StagingStatus, { staged: false }>;

/** The card's line for a command that runs in the sandbox with its changes landing unreviewed; undefined if reviewed. */
export function unreviewedCardLine(status: StagingStatus | undefined): string | undefined {
  // No sandbox at all: the card already says the command runs unconfined, which says more.
  if (status === undefined || status.staged || status.why === 'no-sandbox') {
    return undefined;
  }
  return withFix(`Its changes will land in the workspace without review: ${status.reason}.`, status);
}

/** What the status item shows while commands' changes land unreviewed (undefined: it is hidden). */
export interface UnreviewedItem {
  text: string;
  tooltip: string;
  /** The setting a click opens, where the setting is the fix. */
  setting?: string;
}

export function unreviewedItem(status: StagingStatus | undefined): UnreviewedItem | undefined {
  if (status === undefined || status.staged) {
    return undefined;
  }
  if (status.why === 'no-sandbox') {
    return { text: '$(warning) No sandbox', tooltip: `Toolgate: no sandbox here (${status.reason}): every command asks, and runs unconfined if you allow it.` };
  }
  return {
    text: '$(warning) Changes unreviewed',
    tooltip: withFix(`Toolgate: commands' changes land in the workspace without review: ${status.reason}.`, status),
    ...(status.why === 'setting-off' ? { setting: reviewSetting } : {}),
  };
}

/** The model's report of a command that ran confined but unstaged: its changes were not reviewed. */
export function unreviewedReportLine(status: StagingStatus | undefined): string | undefined {
  return status === undefined || status.staged || status.why === 'no-sandbox' ? undefined : `Its changes were not reviewed: they went straight to the workspace (${status.reason}).`;
}

/** A command whose card said its changes would be reviewed, but which cannot be staged at launch: not run. */
export { unreviewedNotRun } from '../terminal/report';

function withFix(sentence: string, status: Unstaged): string {
  const fix = fixes[status.why];
  return fix === undefined ? sentence : `${sentence} ${fix}`;
}

import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  defaultGatedTools,
  ignoredSettingNote,
  parseSetting,
  restrictedSettings,
  settingDefaults,
  workspaceValuesOf,
} from '../../src/core/settings';

describe('settings parsing', () => {
  it('uses the default when a setting is absent', () => {
    assert.deepEqual(parseSetting('gatedTools', undefined), { value: defaultGatedTools });
  });

  it('keeps a valid value', () => {
    assert.deepEqual(parseSetting('approval.timeoutSeconds', 30), { value: 30 });
    assert.deepEqual(parseSetting('autoApprove.terminal', { 'npm test': true, rm: false }).value, {
      'npm test': true,
      rm: false,
    });
  });

  it('falls back to the default with a problem when a value is malformed', () => {
    const timeout = parseSetting('approval.timeoutSeconds', -5);
    assert.equal(timeout.value, settingDefaults['approval.timeoutSeconds']);
    assert.match(timeout.problem ?? '', /toolgate\.approval\.timeoutSeconds is invalid/);

    const gated = parseSetting('gatedTools', { write_file: 'no' });
    assert.deepEqual(gated.value, defaultGatedTools, 'a malformed gatedTools must not ungate anything');
    assert.ok(gated.problem);

    assert.ok(parseSetting('model.baseUrl', 'not a url').problem);
  });

  it('bounds the checkpoints at 16 MiB unless set, never below 1 MiB', () => {
    assert.deepEqual(parseSetting('checkpoints.maxMegabytes', undefined), { value: 16 });
    assert.deepEqual(parseSetting('checkpoints.maxMegabytes', 2.5), { value: 2.5 });
    assert.match(parseSetting('checkpoints.maxMegabytes', 0).problem ?? '', /toolgate\.checkpoints\.maxMegabytes is invalid/);
    const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { contributes: { configuration: { properties: Record<string, { default?: unknown; minimum?: unknown }> } } };
    const declared = manifest.contributes.configuration.properties['toolgate.checkpoints.maxMegabytes'];
    assert.deepEqual([declared?.default, declared?.minimum], [settingDefaults['checkpoints.maxMegabytes'], 1]);
  });

  it('notifies about waiting calls and questions when the views are hidden, unless turned off', () => {
    assert.deepEqual(parseSetting('notifications.whenHidden', undefined), { value: true });
    assert.deepEqual(parseSetting('notifications.whenHidden', false), { value: false });
    assert.match(parseSetting('notifications.whenHidden', 'no').problem ?? '', /toolgate\.notifications\.whenHidden is invalid/);
    const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { contributes: { configuration: { properties: Record<string, { type?: unknown; default?: unknown }> } } };
    const declared = manifest.contributes.configuration.properties['toolgate.notifications.whenHidden'];
    assert.deepEqual([declared?.type, declared?.default], ['boolean', settingDefaults['notifications.whenHidden']]);
  });

  it('opens the Approvals panel only for a call no visible view shows unless set, as the manifest declares', () => {
    assert.deepEqual(parseSetting('approvals.revealPanel', undefined), { value: 'whenNotVisible' });
    assert.deepEqual(parseSetting('approvals.revealPanel', 'never'), { value: 'never' });
    assert.match(parseSetting('approvals.revealPanel', 'sometimes').problem ?? '', /toolgate\.approvals\.revealPanel is invalid/);
    const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { contributes: { configuration: { properties: Record<string, { enum?: unknown; default?: unknown; enumDescriptions?: unknown[] }> } } };
    const declared = manifest.contributes.configuration.properties['toolgate.approvals.revealPanel'];
    assert.deepEqual([declared?.enum, declared?.default, declared?.enumDescriptions?.length], [['whenNotVisible', 'always', 'never'], settingDefaults['approvals.revealPanel'], 3]);
  });

  it('gates every tool that changes things by default', () => {
    for (const tool of ['write_file', 'edit_file', 'run_in_terminal']) {
      assert.equal(defaultGatedTools[tool], true, tool);
    }
  });
});

describe('workspace values of restricted settings', () => {
  it('lists exactly the restricted settings of the manifest', () => {
    const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as {
      capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } };
    };
    assert.deepEqual([...restrictedSettings].sort(), [...manifest.capabilities.untrustedWorkspaces.restrictedConfigurations].sort());
  });

  it('finds the value each workspace settings file gives, and nothing in files that do not set it', () => {
    const files = [
      { label: 'team.code-workspace', values: { 'toolgate.model.baseUrl': 'http://a/v1' } },
      { label: '.vscode/settings.json', values: { 'editor.tabSize': 2 } },
      { label: 'broken', values: undefined },
      { label: 'a list', values: ['toolgate.model.baseUrl'] },
      { label: 'app/.vscode/settings.json', values: { 'toolgate.model.baseUrl': null } },
    ];
    assert.deepEqual(workspaceValuesOf('toolgate.model.baseUrl', files), [
      { key: 'toolgate.model.baseUrl', value: 'http://a/v1', file: 'team.code-workspace' },
      { key: 'toolgate.model.baseUrl', value: null, file: 'app/.vscode/settings.json' },
    ]);
    assert.deepEqual(workspaceValuesOf('toolgate.gatedTools', files), []);
  });

  it('says which file sets what, that Restricted Mode ignores it, what was used instead and what to do', () => {
    const note = ignoredSettingNote(
      { key: 'toolgate.model.baseUrl', value: 'http://127.0.0.1:4000/v1', file: '.vscode/settings.json' },
      'http://127.0.0.1:11434/v1',
    );
    assert.equal(
      note,
      'This folder\'s .vscode/settings.json sets toolgate.model.baseUrl to "http://127.0.0.1:4000/v1", but VS Code ignores that ' +
        'setting while the folder is not trusted (Restricted Mode), so "http://127.0.0.1:11434/v1" was used. ' +
        'Trust the folder, or set toolgate.model.baseUrl in your user settings.',
    );
  });
});

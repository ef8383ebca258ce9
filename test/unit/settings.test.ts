import * as assert from 'node:assert/strict';
import { defaultGatedTools, parseSetting, settingDefaults } from '../../src/core/settings';

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

  it('gates every tool that changes things by default', () => {
    for (const tool of ['write_file', 'edit_file', 'run_in_terminal']) {
      assert.equal(defaultGatedTools[tool], true, tool);
    }
  });
});

import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { checkAddress, machineModelSettings, modelSettingPlace, planSave, savedWhere, userPlace, type ModelSettingKey, type SettingPlace, type TestedModel } from '../../src/core/llm/setup';
import { modelAfterList } from '../../src/shared/modelProviders';

const address = 'http://127.0.0.1:11434/v1';
const notServed: TestedModel = {
  baseUrl: address,
  model: 'missing-model',
  running: false,
  checks: [
    { kind: 'address', result: 'pass', text: `${address} answered: it serves 2 models.` },
    { kind: 'model', result: 'fail', text: 'It does not list missing-model. Pick one of its 2 models (a, b).' },
  ],
};

describe('the model setup: the model field, Save, and where it saved', () => {
  const lists: { name: string; typed: string; ids: string[]; model: string }[] = [
    { name: 'the only model listed fills an empty field', typed: '', ids: ['only-model'], model: 'only-model' },
    { name: 'the only model listed replaces one it does not serve (the old preset’s)', typed: 'qwen2.5-coder:7b', ids: ['gpt-4o'], model: 'gpt-4o' },
    { name: 'the only model listed, already typed: kept', typed: 'only-model', ids: ['only-model'], model: 'only-model' },
    { name: 'several listed: what was typed is kept, even unlisted (the test says so)', typed: 'missing-model', ids: ['a', 'b'], model: 'missing-model' },
    { name: 'several listed, empty field: left to the person', typed: '', ids: ['a', 'b'], model: '' },
    { name: 'none listed: what was typed is kept', typed: 'typed', ids: [], model: 'typed' },
  ];
  for (const { name, typed, ids, model } of lists) {
    it(name, () => {
      assert.equal(modelAfterList(typed, ids), model);
    });
  }

  const saves: { name: string; model: string; test: TestedModel | undefined; warnedFor: string | undefined; saved: boolean; text?: RegExp }[] = [
    { name: 'no test: saved', model: 'missing-model', test: undefined, warnedFor: undefined, saved: true },
    { name: 'the test just found the model not served: not saved, warned', model: 'missing-model', test: notServed, warnedFor: undefined, saved: false, text: /^Not saved: Test connection just found that http:\/\/127\.0\.0\.1:11434\/v1 does not serve missing-model\. It does not list missing-model\. Pick one of its 2 models \(a, b\)\. Or press Save again to save missing-model anyway\.$/ },
    { name: 'Save again after the warning: saved', model: 'missing-model', test: notServed, warnedFor: `${address}\nmissing-model`, saved: true },
    { name: 'the test was of another model: saved', model: 'a', test: notServed, warnedFor: undefined, saved: true },
    { name: 'the test was of another address: not in the way', model: 'missing-model', test: { ...notServed, baseUrl: 'http://127.0.0.1:1234/v1' }, warnedFor: undefined, saved: true },
    { name: 'the test still runs: not in the way', model: 'missing-model', test: { ...notServed, running: true }, warnedFor: undefined, saved: true },
    { name: 'the test passed the model: saved', model: 'missing-model', test: { ...notServed, checks: [{ kind: 'model', result: 'pass', text: 'It serves missing-model.' }] }, warnedFor: undefined, saved: true },
    { name: 'no model: not saved', model: '  ', test: undefined, warnedFor: undefined, saved: false, text: /^Not saved: enter a model/ },
  ];
  for (const { name, model, test, warnedFor, saved, text } of saves) {
    it(`Save: ${name}`, () => {
      const plan = planSave({ address: checkAddress(address), model, label: "VS Code's Language Model API", test, warnedFor });
      assert.equal(plan.ok, saved, JSON.stringify(plan));
      if (!plan.ok && text !== undefined) {
        assert.match(plan.text, text);
      }
    });
  }

  it('Save warns once: the warning remembers what it was for, and a Save of something else forgets it', () => {
    const first = planSave({ address: checkAddress(address), model: 'missing-model', label: '', test: notServed, warnedFor: undefined });
    assert.equal(first.ok, false);
    const second = planSave({ address: checkAddress(address), model: 'missing-model', label: '', test: notServed, warnedFor: first.warnedFor });
    assert.equal(second.ok, true);
    assert.equal(second.warnedFor, undefined);
  });

  const places: { name: string; written: [ModelSettingKey, SettingPlace][]; where: string }[] = [
    { name: 'all for the user', written: [['model.provider', 'user'], ['model.baseUrl', 'user'], ['model.name', 'user']], where: 'your user settings' },
    { name: 'all in the workspace', written: [['model.provider', 'workspace'], ['model.baseUrl', 'workspace'], ['model.name', 'workspace']], where: "this workspace's settings (it sets the model already)" },
    {
      name: 'a remote window: the address (a machine setting) in the Remote settings',
      written: [['model.provider', 'user'], ['model.baseUrl', 'remote'], ['model.name', 'user']],
      where: 'your user settings (provider, model) and the Remote settings of the machine the extension runs on (address)',
    },
    {
      name: 'the workspace sets the address and model, the provider for the user',
      written: [['model.provider', 'user'], ['model.baseUrl', 'workspace'], ['model.name', 'workspace']],
      where: "your user settings (provider) and this workspace's settings (address, model; it set them already)",
    },
  ];
  for (const { name, written, where } of places) {
    it(`says where it saved: ${name}`, () => {
      assert.equal(savedWhere(written.map(([key, place]) => ({ key, place }))), where);
    });
  }

  it('a setting goes to the Remote settings only when it is a machine setting and the window is remote', () => {
    assert.deepEqual(
      (['model.provider', 'model.baseUrl', 'model.name'] as const).flatMap((key) => [false, true].map((remote) => `${key} ${remote ? 'remote' : 'local'}: ${userPlace(key, remote)}`)),
      ['model.provider local: user', 'model.provider remote: user', 'model.baseUrl local: user', 'model.baseUrl remote: remote', 'model.name local: user', 'model.name remote: user'],
    );
  });

  const written: { name: string; inspected: { workspaceValue?: unknown; workspaceFolderValue?: unknown } | undefined; remote: boolean; place: SettingPlace }[] = [
    { name: 'set nowhere: for the user', inspected: {}, remote: false, place: 'user' },
    { name: 'nothing inspected: for the user', inspected: undefined, remote: false, place: 'user' },
    { name: "set by the workspace: there, or the workspace's value would win", inspected: { workspaceValue: 'https://a' }, remote: true, place: 'workspace' },
    { name: 'set by a folder: in the workspace', inspected: { workspaceFolderValue: 'https://b' }, remote: false, place: 'workspace' },
    { name: 'set nowhere, in a remote window: the Remote settings (a machine setting)', inspected: {}, remote: true, place: 'remote' },
  ];
  for (const row of written) {
    it(`writes model.baseUrl where it takes effect: ${row.name}`, () => {
      assert.equal(modelSettingPlace('model.baseUrl', row.inspected, row.remote), row.place);
    });
  }

  it("the machine model settings are the manifest's machine-scoped ones", () => {
    const manifest = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as { contributes: { configuration: { properties: Record<string, { scope?: string }> } } };
    const scoped = Object.entries(manifest.contributes.configuration.properties)
      .filter(([key, value]) => key.startsWith('toolgate.model.') && (value.scope === 'machine' || value.scope === 'machine-overridable'))
      .map(([key]) => key.slice('toolgate.'.length));
    assert.deepEqual([...machineModelSettings], scoped);
  });
});

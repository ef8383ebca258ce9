import * as assert from 'node:assert/strict';
import { readCommandArg } from '../../src/core/commandArgs';
import type { SandboxInputs } from '../../src/core/sandbox/gather';
import { policyReportText, sourceOf } from '../../src/core/sandbox/policyReport';
import type { SandboxPolicy } from '../../src/core/sandbox/policy';

const inputs: SandboxInputs = {
  workspaceFolders: ['/w'],
  protectedGlobs: ['.vscode/**', '.git/**', '**/.env*'],
  extraHidden: ['/secret'],
  extraWritable: ['/extra'],
  ownStorage: ['/storage'],
  network: 'none',
  allowedDomains: ['registry.example.org'],
};

describe('Show Sandbox Policy: where each rule comes from (sourceOf)', () => {
  const rows: { entry: string; kind: 'writable' | 'readOnly' | 'hidden'; source: RegExp }[] = [
    { entry: '/w', kind: 'writable', source: /^the workspace folder$/ },
    { entry: '/home/u/.cache/toolgate-sandbox/abc', kind: 'writable', source: /tool cache/ },
    { entry: '/extra', kind: 'writable', source: /^toolgate\.sandbox\.writablePaths$/ },
    { entry: '/w/.vscode', kind: 'readOnly', source: /^toolgate\.protectedPaths `\.vscode\/\*\*`$/ },
    { entry: '/w/.env.local', kind: 'readOnly', source: /^toolgate\.protectedPaths `\*\*\/\.env\*`$/ },
    { entry: '/w/.git/hooks', kind: 'readOnly', source: /git's control entries/ },
    { entry: '/home/u/.ssh', kind: 'hidden', source: /credential floor/ },
    { entry: '/storage', kind: 'hidden', source: /own storage/ },
    { entry: '/run/user/1000', kind: 'hidden', source: /agent sockets/ },
    { entry: '/secret', kind: 'hidden', source: /^toolgate\.sandbox\.hiddenPaths$/ },
  ];
  for (const row of rows) {
    it(`${row.kind} ${row.entry}`, () => assert.match(sourceOf(row.entry, row.kind, inputs), row.source));
  }
});

describe('Show Sandbox Policy: the report (policyReportText)', () => {
  const policy: SandboxPolicy = {
    writable: ['/w'],
    readOnly: ['/w/.vscode'],
    readOnlyPatterns: ['/w/**/.env*'],
    pinned: [],
    hidden: [{ path: '/home/u/.ssh', kind: 'dir' }],
    network: 'none',
    env: { TMPDIR: '/c/tmp' },
  };
  const rows: { platform: 'linux' | 'darwin'; has: RegExp[]; hasNot: RegExp[] }[] = [
    {
      platform: 'darwin',
      has: [/Engine: Seatbelt/, /not staged \(macOS has no overlay/, /\/w\/\*\*\/\.env\* {2}\(toolgate\.protectedPaths `\*\*\/\.env\*`\)/, /on a loopback port/, /Seatbelt profile/, /FORM$/],
      hasNot: [/bubblewrap arguments/],
    },
    { platform: 'linux', has: [/Engine: bubblewrap/, /staged on an overlay/, /bubblewrap arguments/, /Unix socket/], hasNot: [/Read-only by pattern/] },
  ];
  for (const row of rows) {
    it(row.platform, () => {
      const text = policyReportText({ platform: row.platform, hostPlatform: 'linux', inputs, policy, passEnvironment: ['NPM_TOKEN'], form: 'FORM', notes: [] }).trimEnd();
      for (const pattern of [...row.has, /\/w {2}\(the workspace folder\)/, /\/home\/u\/\.ssh {2}\(the credential floor/, /registry\.example\.org/, /PATH HOME .* {2}\(the allow-list\)/, /NPM_TOKEN {2}\(toolgate\.sandbox\.passEnvironment\)/, /TMPDIR/]) {
        assert.match(text, pattern);
      }
      for (const pattern of row.hasNot) {
        assert.doesNotMatch(text, pattern);
      }
    });
  }
});

describe('Show Sandbox Policy: its argument', () => {
  const rows: { arg: unknown; ok: boolean }[] = [
    { arg: undefined, ok: true },
    { arg: {}, ok: true },
    { arg: { platform: 'darwin' }, ok: true },
    { arg: { platform: 'linux' }, ok: true },
    { arg: { platform: 'win32' }, ok: false },
    { arg: { platform: 'linux', extra: 1 }, ok: false },
    { arg: 'darwin', ok: false },
  ];
  for (const row of rows) {
    it(row.arg === undefined ? 'nothing' : JSON.stringify(row.arg), () => {
      const read = readCommandArg('toolgate.showSandboxPolicy', row.arg);
      assert.equal(read.ok, row.ok);
      if (!read.ok) {
        assert.match(read.error, /^toolgate\.showSandboxPolicy takes \{ "platform": "linux" \| "darwin" \} or nothing, got /);
      }
    });
  }
});

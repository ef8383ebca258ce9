import * as assert from 'node:assert/strict';
import { Emitter } from '../../src/core/disposable';
import { hostCommandTarget, type EditorCommand } from '../../src/core/views/hostCommands';
import { answerRequests } from '../../src/core/views/requestAnswers';
import type { Outcome, ViewRequest } from '../../src/core/views/viewRequests';
import type { HostCommand, HostToWebview, InboundFor } from '../../src/shared/messages';

describe('the host commands of the webview contract', () => {
  const rows: { command: HostCommand; remote: boolean; runs: EditorCommand }[] = [
    { command: 'openApprovals', remote: false, runs: ['toolgate.openApprovals'] },
    { command: 'focusChat', remote: false, runs: ['toolgate.chat.focus'] },
    { command: 'manageWorkspaceTrust', remote: true, runs: ['workbench.trust.manage'] },
    { command: 'openModelSettings', remote: false, runs: ['workbench.action.openSettings', { query: 'toolgate.model' }] },
    // The model's address is a machine setting: a remote window keeps it in its Remote settings.
    { command: 'openModelSettings', remote: true, runs: ['workbench.action.openRemoteSettings', { query: 'toolgate.model' }] },
    { command: 'openTerminalRules', remote: true, runs: ['workbench.action.openSettings', { query: 'toolgate.autoApprove.terminal' }] },
    { command: 'showStagedChanges', remote: false, runs: ['toolgate.showStagedChanges'] },
  ];
  for (const row of rows) {
    it(`${row.command}${row.remote ? ' in a remote window' : ''} runs ${row.runs[0]}`, () => {
      assert.deepEqual(hostCommandTarget(row.command, row.remote), row.runs);
    });
  }
});

describe("a webview's requests answered", () => {
  type Request = InboundFor<'approvals'>;
  const rows: { name: string; message: Request; handle: () => Outcome | Promise<Outcome>; result: HostToWebview; ran: HostCommand[]; logged: string[] }[] = [
    {
      name: 'a host command is run, not handed to the view',
      message: { type: 'command', requestId: 'r1', command: 'openApprovals' },
      handle: () => ({ ok: false, error: 'not for the view' }),
      result: { type: 'result', requestId: 'r1', ok: true },
      ran: ['openApprovals'],
      logged: [],
    },
    {
      name: "any other request goes to the view's handler",
      message: { type: 'openArgs', requestId: 'r2', callId: 'c-1' },
      handle: () => ({ ok: true }),
      result: { type: 'result', requestId: 'r2', ok: true },
      ran: [],
      logged: [],
    },
    {
      name: 'a refusal is logged and returned',
      message: { type: 'openArgs', requestId: 'r3', callId: 'c-1' },
      handle: () => Promise.resolve({ ok: false, error: 'nothing waits' }),
      result: { type: 'result', requestId: 'r3', ok: false, error: 'nothing waits' },
      ran: [],
      logged: ["warn [approvals] ignored 'openArgs': nothing waits"],
    },
    {
      name: 'a failure is logged as an error and returned',
      message: { type: 'openArgs', requestId: 'r4', callId: 'c-1' },
      handle: () => Promise.reject(new Error('boom')),
      result: { type: 'result', requestId: 'r4', ok: false, error: 'boom' },
      ran: [],
      logged: ["error [approvals] 'openArgs' failed: boom"],
    },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const received = new Emitter<Exclude<Request, { type: 'ready' | 'dropped' }>>();
      const posted: HostToWebview[] = [];
      const logged: string[] = [];
      const ran: HostCommand[] = [];
      const log = { info: (line: string) => logged.push(`info ${line}`), warn: (line: string) => logged.push(`warn ${line}`), error: (line: string) => logged.push(`error ${line}`) };
      const channel = { view: 'approvals' as const, onDidReceive: received.event, post: (message: HostToWebview) => void posted.push(message) };
      answerRequests(channel, log, (_request: ViewRequest<'approvals'>) => row.handle(), (command) => (ran.push(command), Promise.resolve()));
      received.fire(row.message as Exclude<Request, { type: 'ready' | 'dropped' }>);
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual({ posted, ran, logged }, { posted: [row.result], ran: row.ran, logged: row.logged });
    });
  }
});

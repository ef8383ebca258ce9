/**
 * Every request a webview makes is answered with a `result`: the contract's host commands are run by the editor's
 * port, everything else goes to the view's handler. A refusal or failure is logged and returned to the webview;
 * nothing is dropped silently.
 */
import type { Disposable } from '../disposable';
import type { LogPort } from '../logPort';
import type { HostCommand, ViewKind, WebviewToHost } from '../../shared/messages';
import type { Outcome, ViewRequest } from './viewRequests';
import type { WebviewChannel } from './webviewChannel';

/** Runs a host command of the contract in the editor (src/vscode/webviews/hostCommands.ts). */
export type HostCommandRunner = (command: HostCommand) => PromiseLike<unknown>;

type CommandRequest = Extract<WebviewToHost, { type: 'command' }>;
const isCommand = (message: { type: string }): message is CommandRequest => message.type === 'command';

export function answerRequests<V extends ViewKind>(
  channel: Pick<WebviewChannel<V>, 'view' | 'onDidReceive' | 'post'>,
  log: LogPort,
  handle: (request: ViewRequest<V>) => Outcome | Promise<Outcome>,
  runCommand: HostCommandRunner,
): Disposable {
  return channel.onDidReceive((message) => {
    const run = async (): Promise<Outcome> => {
      if (isCommand(message)) {
        await runCommand(message.command);
        return { ok: true };
      }
      return await handle(message as ViewRequest<V>);
    };
    run().then(
      (outcome) => {
        if (!outcome.ok) {
          log.warn(`[${channel.view}] ignored '${message.type}': ${outcome.error}`);
        }
        channel.post({ type: 'result', requestId: message.requestId, ...outcome });
      },
      (error: unknown) => {
        const text = error instanceof Error ? error.message : String(error);
        log.error(`[${channel.view}] '${message.type}' failed: ${text}`);
        channel.post({ type: 'result', requestId: message.requestId, ok: false, error: text });
      },
    );
  });
}

/**
 * run_in_terminal's VS Code side: a terminal per chat, named after the chat ("Toolgate: <title>") and backed by a
 * Pseudoterminal, so the command is not typed into the user's shell. What runs, and how, is src/core/terminal (bash,
 * one program text, no rc files); which terminal a command goes to is `chooseTerminal` there. A chat's terminal is
 * reused for its successive commands; another is created only while that one is busy or after the person closed it.
 * Terminals go with their chat (`retainChats`) and with the extension.
 */
import * as vscode from 'vscode';
import { DisposableStore } from '../../core/disposable';
import type { CommandSandbox } from '../../core/sandbox/commandSandbox';
import { describeRefusal } from '../../core/sandbox/domainProxy';
import type { SandboxLaunch } from '../../core/sandbox/sandbox';
import { discardStage, type Stage } from '../../core/sandbox/staging';
import { CommandTerminal, type TerminalCommandResult } from '../../core/terminal/commandTerminal';
import type { RunHow } from '../../core/tools/ports';
import { chooseTerminal, orphanedTerminals, terminalName, type TerminalSlot } from '../../core/terminal/terminalChoice';

interface Session {
  chatId: string;
  terminal: vscode.Terminal;
  commands: CommandTerminal;
  store: DisposableStore;
  /** Resolves when VS Code opens the terminal: after its Workspace Trust request was answered, whichever way. */
  opened: Promise<void>;
}

/** After the terminal opens in a folder still untrusted, how long the trust grant may take to reach the extension. */
const trustGrantGraceMs = 2_000;

export const untrustedNotRun =
  'this folder is not trusted: VS Code asked whether you trust its authors, and it was not trusted, so nothing was run. Trust the folder (Manage Workspace Trust), then ask again.';

const slot = (session: Session): TerminalSlot => ({ chatId: session.chatId, busy: session.commands.busy, closed: session.commands.isClosed });

/** A command running now on a stage: what it has changed so far can be shown on request. */
export interface RunningStage {
  chatId: string;
  command: string;
  stage: Stage;
}

export class TerminalRunner implements vscode.Disposable {
  private readonly store = new DisposableStore();
  private readonly sessions: Session[] = [];
  private readonly staged = new Set<RunningStage>();

  /** The staged commands running now, oldest first (of one chat, or all). */
  runningStages(chatId?: string): RunningStage[] {
    return [...this.staged].filter((running) => chatId === undefined || running.chatId === chatId);
  }

  /**
   * `chatTitle`: the title of a chat, by id, for its terminal's name. `sandbox`: where commands run; where it is
   * unavailable they run unconfined, which the gate has asked the person about (it asks for every command then).
   */
  constructor(
    private readonly chatTitle: (chatId: string) => string | undefined,
    private readonly sandbox: CommandSandbox,
  ) {
    this.store.add(
      vscode.window.onDidCloseTerminal((terminal) => {
        const index = this.sessions.findIndex((session) => session.terminal === terminal);
        const [session] = index >= 0 ? this.sessions.splice(index, 1) : [];
        session?.store.dispose();
      }),
    );
  }

  async run(command: string, cwd: string, timeoutSeconds: number, signal?: AbortSignal, chatId = '', how: RunHow = {}): Promise<TerminalCommandResult> {
    let wrap: SandboxLaunch | undefined;
    if (how.unconfined !== true) {
      try {
        const prepared = await this.sandbox.launch(cwd, undefined, { stage: true });
        wrap = 'launch' in prepared ? prepared.launch : undefined;
      } catch (error) {
        return notStarted(`the sandbox could not be prepared (${error instanceof Error ? error.message : String(error)}), so nothing was run.`);
      }
    }
    // The stage goes to the caller with a result of a command that ran; in every other case it is discarded here.
    let handedOver = false;
    try {
      // In a folder not trusted, nothing starts before VS Code's own trust request is answered: a new terminal makes
      // VS Code ask ("Creating a terminal process requires executing code"), and only a grant lets the command run.
      const untrusted = !vscode.workspace.isTrusted;
      const index = untrusted ? undefined : chooseTerminal(this.sessions.map(slot), chatId);
      const session = (index === undefined ? undefined : this.sessions[index]) ?? this.create(chatId);
      session.terminal.show(true);
      if (untrusted && !(await this.trusted(session, signal))) {
        return notStarted(untrustedNotRun);
      }
      const running: RunningStage | undefined = wrap?.stage === undefined ? undefined : { chatId, command, stage: wrap.stage };
      if (running) {
        this.staged.add(running);
      }
      const result = await session.commands
        .run({ command, cwd, timeoutMs: timeoutSeconds * 1000, passEnvironment: this.sandbox.passEnvironment(), ...(signal ? { signal } : {}), ...(wrap ? { wrap } : {}) })
        .finally(() => running && this.staged.delete(running));
      if (!wrap || result.notRun !== undefined) {
        return result;
      }
      const checked = await this.checkCreated(withRefusals(result, wrap), wrap);
      handedOver = wrap.stage !== undefined;
      return wrap.stage === undefined ? checked : { ...checked, stage: wrap.stage };
    } finally {
      await wrap?.proxy?.close();
      if (!handedOver && wrap?.stage !== undefined) {
        await discardStage(wrap.stage);
      }
    }
  }

  /** Protected paths a sandboxed command created (the sandbox guards only what exists): the person and model are told. */
  private async checkCreated(result: TerminalCommandResult, launch: SandboxLaunch): Promise<TerminalCommandResult> {
    const paths = await this.sandbox.newlyProtected(launch);
    const created = paths.map((entry) => vscode.workspace.asRelativePath(entry, true));
    if (paths.length === 0) {
      return result;
    }
    const first = vscode.Uri.file(paths[0] ?? '');
    void vscode.window
      .showWarningMessage(
        `Toolgate: a command created ${created.length === 1 ? 'a protected file' : `${created.length} protected files`} (${created.join(', ')}). Protected files are guarded only once they exist: review ${created.length === 1 ? 'it' : 'them'}.`,
        'Open',
      )
      .then(async (choice) => {
        if (choice === 'Open') {
          const stat = await vscode.workspace.fs.stat(first).then((value) => value, () => undefined);
          await (stat?.type === vscode.FileType.File ? vscode.window.showTextDocument(first) : vscode.commands.executeCommand('revealInExplorer', first));
        }
      });
    return { ...result, createdProtected: created };
  }

  /**
   * Whether the folder was trusted in answer to the request the new terminal made: the grant arrives as an event; a
   * Cancel shows only as the terminal opening (code-server) or closing (desktop) without one, or the task stopping.
   */
  private trusted(session: Session, signal: AbortSignal | undefined): Promise<boolean> {
    return new Promise((resolve) => {
      const store = new DisposableStore();
      let timer: NodeJS.Timeout | undefined;
      const done = (trusted: boolean): void => {
        store.dispose();
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(trusted);
      };
      const onAbort = (): void => done(false);
      signal?.addEventListener('abort', onAbort, { once: true });
      store.add(vscode.workspace.onDidGrantWorkspaceTrust(() => done(true)));
      store.add(vscode.window.onDidCloseTerminal((terminal) => terminal === session.terminal && done(false)));
      void session.opened.then(() => {
        if (vscode.workspace.isTrusted) {
          done(true);
        } else {
          timer = setTimeout(() => done(vscode.workspace.isTrusted), trustGrantGraceMs);
        }
      });
      if (signal?.aborted) {
        done(false);
      }
    });
  }

  /** Disposes the terminals of chats that are gone. */
  retainChats(liveChatIds: ReadonlySet<string>): void {
    for (const index of orphanedTerminals(this.sessions.map(slot), liveChatIds).reverse()) {
      this.sessions.splice(index, 1)[0]?.store.dispose();
    }
  }

  private create(chatId: string): Session {
    const store = new DisposableStore();
    const commands = store.add(new CommandTerminal());
    const writes = store.add(new vscode.EventEmitter<string>());
    store.add(commands.onDidWrite((text) => writes.fire(text)));
    let markOpened = (): void => undefined;
    const opened = new Promise<void>((resolve) => {
      markOpened = resolve;
    });
    const pty: vscode.Pseudoterminal = {
      onDidWrite: writes.event,
      open: () => {
        commands.open();
        markOpened();
      },
      close: () => commands.close(),
      handleInput: (data) => commands.handleInput(data),
    };
    const terminal = vscode.window.createTerminal({ name: terminalName(this.chatTitle(chatId)), pty, iconPath: new vscode.ThemeIcon('shield'), isTransient: true });
    store.add(terminal);
    const session: Session = { chatId, terminal, commands, store, opened };
    this.sessions.push(session);
    return session;
  }

  dispose(): void {
    for (const session of this.sessions.splice(0)) {
      session.store.dispose();
    }
    this.store.dispose();
  }
}

/** What the command's filtering proxy refused, for the model and the person (the terminal already showed the 403s). */
function withRefusals(result: TerminalCommandResult, launch: SandboxLaunch): TerminalCommandResult {
  const refused = launch.proxy?.refusals.map(describeRefusal) ?? [];
  return refused.length === 0 ? result : { ...result, refusedConnections: refused };
}

const notStarted = (reason: string): TerminalCommandResult => ({
  exitCode: undefined,
  signal: undefined,
  output: '',
  timedOut: false,
  cancelled: false,
  leftoversStopped: false,
  notRun: reason,
  shell: undefined,
  sandboxed: false,
  stoppedFromTerminal: undefined,
});

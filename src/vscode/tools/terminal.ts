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
import { CommandTerminal, type TerminalCommandResult } from '../../core/terminal/commandTerminal';
import type { RunHow } from '../../core/tools/ports';
import { chooseTerminal, orphanedTerminals, terminalName, type TerminalSlot } from '../../core/terminal/terminalChoice';

interface Session {
  chatId: string;
  terminal: vscode.Terminal;
  commands: CommandTerminal;
  store: DisposableStore;
}

const slot = (session: Session): TerminalSlot => ({ chatId: session.chatId, busy: session.commands.busy, closed: session.commands.isClosed });

export class TerminalRunner implements vscode.Disposable {
  private readonly store = new DisposableStore();
  private readonly sessions: Session[] = [];

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
    let wrap: { program: string; args: string[]; env: Record<string, string> } | undefined;
    if (how.unconfined !== true) {
      try {
        const prepared = await this.sandbox.launch(cwd);
        wrap = 'launch' in prepared ? prepared.launch : undefined;
      } catch (error) {
        return notStarted(`the sandbox could not be prepared (${error instanceof Error ? error.message : String(error)}), so nothing was run.`);
      }
    }
    const index = chooseTerminal(this.sessions.map(slot), chatId);
    const session = (index === undefined ? undefined : this.sessions[index]) ?? this.create(chatId);
    session.terminal.show(true);
    return await session.commands.run({ command, cwd, timeoutMs: timeoutSeconds * 1000, ...(signal ? { signal } : {}), ...(wrap ? { wrap } : {}) });
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
    const pty: vscode.Pseudoterminal = {
      onDidWrite: writes.event,
      open: () => commands.open(),
      close: () => commands.close(),
      handleInput: (data) => commands.handleInput(data),
    };
    const terminal = vscode.window.createTerminal({ name: terminalName(this.chatTitle(chatId)), pty, iconPath: new vscode.ThemeIcon('shield'), isTransient: true });
    store.add(terminal);
    const session: Session = { chatId, terminal, commands, store };
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

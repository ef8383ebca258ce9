/**
 * run_in_terminal's VS Code side: a terminal named "Toolgate" backed by a Pseudoterminal, so the command is not typed
 * into the user's shell. What runs, and how, is src/core/terminal (bash, one program text, no rc files); this only
 * shows it. One terminal is reused for successive commands; another is created only while that one is busy or after
 * the person closed it.
 */
import * as vscode from 'vscode';
import { DisposableStore } from '../../core/disposable';
import { CommandTerminal, type TerminalCommandResult } from '../../core/terminal/commandTerminal';

interface Session {
  terminal: vscode.Terminal;
  commands: CommandTerminal;
  store: DisposableStore;
}

export class TerminalRunner implements vscode.Disposable {
  private readonly store = new DisposableStore();
  private readonly sessions: Session[] = [];

  constructor() {
    this.store.add(
      vscode.window.onDidCloseTerminal((terminal) => {
        const index = this.sessions.findIndex((session) => session.terminal === terminal);
        const [session] = index >= 0 ? this.sessions.splice(index, 1) : [];
        session?.store.dispose();
      }),
    );
  }

  async run(command: string, cwd: string, timeoutSeconds: number, signal?: AbortSignal): Promise<TerminalCommandResult> {
    const session = this.sessions.find((candidate) => !candidate.commands.busy && !candidate.commands.isClosed) ?? this.create();
    session.terminal.show(true);
    return await session.commands.run({ command, cwd, timeoutMs: timeoutSeconds * 1000, ...(signal ? { signal } : {}) });
  }

  private create(): Session {
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
    const terminal = vscode.window.createTerminal({ name: 'Toolgate', pty, iconPath: new vscode.ThemeIcon('shield'), isTransient: true });
    store.add(terminal);
    const session: Session = { terminal, commands, store };
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

/**
 * run_in_terminal's VS Code side, only its pseudoterminal: a terminal per chat, named after the chat ("Toolgate:
 * <title>") and backed by a Pseudoterminal, so the command is not typed into the user's shell. What runs, and how, is
 * src/core/terminal (the confined run: sandbox, stage, proxy; bash, one program text, no rc files); which terminal a
 * command goes to is `chooseTerminal` there. A chat's terminal is
 * reused for its successive commands; another is created only while that one is busy or after the person closed it.
 * Terminals go with their chat (`retainChats`) and with the extension.
 */
import * as vscode from 'vscode';
import { DisposableStore } from '../../core/disposable';
import { CommandTerminal, type CommandRequest, type TerminalCommandResult } from '../../core/terminal/commandTerminal';
import { createdProtectedWarning, notStarted, type CreatedProtected, type TerminalPort } from '../../core/terminal/confinedRun';
import { chooseTerminal, orphanedTerminals, terminalName, type TerminalSlot } from '../../core/terminal/terminalChoice';
import { trustAnswered, untrustedNotRun } from '../../core/terminal/trustWait';

interface Session {
  chatId: string;
  terminal: vscode.Terminal;
  commands: CommandTerminal;
  store: DisposableStore;
  /** Resolves when VS Code opens the terminal: after its Workspace Trust request was answered, whichever way. */
  opened: Promise<void>;
}

const slot = (session: Session): TerminalSlot => ({ chatId: session.chatId, busy: session.commands.busy, closed: session.commands.isClosed });

export class TerminalRunner implements TerminalPort, vscode.Disposable {
  private readonly store = new DisposableStore();
  private readonly sessions: Session[] = [];

  /** `chatTitle`: the title of a chat, by id, for its terminal's name. */
  constructor(private readonly chatTitle: (chatId: string) => string | undefined) {
    this.store.add(
      vscode.window.onDidCloseTerminal((terminal) => {
        const index = this.sessions.findIndex((session) => session.terminal === terminal);
        const [session] = index >= 0 ? this.sessions.splice(index, 1) : [];
        session?.store.dispose();
      }),
    );
  }

  /** Runs `request` in the chat's terminal; in a folder not trusted, only once VS Code's own trust request is granted. */
  async execute(request: CommandRequest, chatId: string): Promise<TerminalCommandResult> {
    // In a folder not trusted, nothing starts before VS Code's own trust request is answered: a new terminal makes
    // VS Code ask ("Creating a terminal process requires executing code"), and only a grant lets the command run.
    const untrusted = !vscode.workspace.isTrusted;
    const index = untrusted ? undefined : chooseTerminal(this.sessions.map(slot), chatId);
    const session = (index === undefined ? undefined : this.sessions[index]) ?? this.create(chatId);
    session.terminal.show(true);
    if (untrusted && !(await this.trusted(session, request.signal))) {
      return notStarted(untrustedNotRun);
    }
    return session.commands.run(request);
  }

  /** Whether the folder was trusted in answer to the request the new terminal made (src/core/terminal/trustWait.ts). */
  private trusted(session: Session, signal: AbortSignal | undefined): Promise<boolean> {
    return trustAnswered({
      onDidGrant: (listener) => vscode.workspace.onDidGrantWorkspaceTrust(listener),
      onDidClose: (listener) => vscode.window.onDidCloseTerminal((terminal) => terminal === session.terminal && listener()),
      opened: session.opened,
      isTrusted: () => vscode.workspace.isTrusted,
      signal,
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


/** The person is told of protected paths a command created, with the first one to open. */
export function showCreatedProtected(created: CreatedProtected): void {
  const first = vscode.Uri.file(created.absolute[0] ?? '');
  void vscode.window.showWarningMessage(createdProtectedWarning(created.relative), 'Open').then(async (choice) => {
    if (choice === 'Open') {
      const stat = await vscode.workspace.fs.stat(first).then((value) => value, () => undefined);
      await (stat?.type === vscode.FileType.File ? vscode.window.showTextDocument(first) : vscode.commands.executeCommand('revealInExplorer', first));
    }
  });
}

/**
 * One confined run of an allowed command, owned by the core: the sandbox's launch for it (a stage of the workspace
 * folders and a filtering proxy where they apply), the command run in a terminal (a port: VS Code's pseudoterminal
 * draws it, nothing more), what the proxy refused, the protected paths it created, and its stage handed to the caller,
 * who lands what is allowed of it (../tools/stagedLanding) and discards it. On every other way out (not started, not
 * run, a throw) the stage is discarded here and the proxy is always closed, so nothing a run made outlives it.
 */
import { Emitter } from '../disposable';
import type { CommandSandbox, StagingStatus } from '../sandbox/commandSandbox';
import { describeRefusal } from '../sandbox/domainProxy';
import type { SandboxLaunch } from '../sandbox/sandbox';
import { releaseOpened } from '../sandbox/openOnce';
import { refusedWrites } from '../sandbox/refusedWrites';
import { discardStage, type Stage } from '../sandbox/stage';
import type { CommandRequest, TerminalCommandResult } from './commandTerminal';
import { unreviewedNotRun } from './report';

/** How a command runs: in the OS sandbox (the default), or once without it because the person chose that. */
export interface RunHow {
  unconfined?: boolean;
  /**
   * What its card said of its changes: reviewed before they land (true, the default: it runs staged or not at all) or
   * landing without review (false: staging is off or unavailable, and the card said why).
   */
  staged?: boolean;
  /**
   * The protected files (absolute) the person allowed this command to write on its card: opened for this run only
   * (../sandbox/openOnce). Never from a rule or a grant: only the person's own Allow on a card that named them.
   */
  open?: readonly string[];
  /** The files (absolute) the command was judged to write: a failure names those its sandbox kept read-only. */
  writes?: readonly string[];
  /** Entries of toolgate.sandbox.allowedDomains for this run only, which the person chose on the card of a refused run. */
  allowDomains?: readonly string[];
}

/** Runs one command in a chat's terminal, as it is given (the wrap is the sandbox; absent, it runs unconfined). */
export interface TerminalPort {
  execute(request: CommandRequest, chatId: string): Promise<TerminalCommandResult>;
}

/** A command running now on a stage: what it has changed so far can be shown on request. */
export interface RunningStage {
  chatId: string;
  command: string;
  stage: Stage;
}

/** Protected paths a sandboxed command created: the person is told, with the first to open. */
export interface CreatedProtected {
  /** Relative to the workspace, as the person reads them. */
  relative: string[];
  absolute: string[];
}

export interface ConfinedRunDeps {
  sandbox: Pick<CommandSandbox, 'launch' | 'newlyProtected' | 'stagingStatus' | 'passEnvironment'>;
  terminal: TerminalPort;
  /** A path as the person reads it (relative to its workspace folder). */
  relative: (absolute: string) => string;
}

export class ConfinedRunner {
  private readonly staged = new Set<RunningStage>();
  private readonly createdEmitter = new Emitter<CreatedProtected>();
  /** A sandboxed command created protected paths (the sandbox guards only what exists when it starts). */
  readonly onDidCreateProtected = this.createdEmitter.event;

  constructor(private readonly deps: ConfinedRunDeps) {}

  /** The staged commands running now, oldest first (of one chat, or all). */
  runningStages(chatId?: string): RunningStage[] {
    return [...this.staged].filter((running) => chatId === undefined || running.chatId === chatId);
  }

  /** Whether a command's changes would be reviewed before they land, or why not: asked before its card is shown. */
  stagingStatus(): Promise<StagingStatus> {
    return this.deps.sandbox.stagingStatus();
  }

  async run(command: string, cwd: string, timeoutSeconds: number, signal?: AbortSignal, chatId = '', how: RunHow = {}): Promise<TerminalCommandResult> {
    let wrap: SandboxLaunch | undefined;
    if (how.unconfined !== true) {
      try {
        const prepared = await this.deps.sandbox.launch(cwd, undefined, {
          stage: how.staged ?? true,
          ...(how.open !== undefined ? { open: how.open } : {}),
          ...(how.allowDomains ? { allowDomains: how.allowDomains } : {}),
        });
        if ('notStaged' in prepared) {
          return notStarted(unreviewedNotRun(prepared.notStaged));
        }
        wrap = 'launch' in prepared ? prepared.launch : undefined;
      } catch (error) {
        return notStarted(`the sandbox could not be prepared (${error instanceof Error ? error.message : String(error)}), so nothing was run.`);
      }
    }
    // The stage goes to the caller with the result of a command that ran; in every other case it is discarded here.
    let handedOver = false;
    const running: RunningStage | undefined = wrap?.stage === undefined ? undefined : { chatId, command, stage: wrap.stage };
    try {
      if (running) {
        this.staged.add(running);
      }
      const request: CommandRequest = { command, cwd, timeoutMs: timeoutSeconds * 1000, passEnvironment: this.deps.sandbox.passEnvironment(), ...(signal ? { signal } : {}), ...(wrap ? { wrap } : {}) };
      const result = await this.deps.terminal.execute(request, chatId);
      if (!wrap || result.notRun !== undefined) {
        return result;
      }
      const checked = await this.checkCreated(this.withRefusedWrites(withRefusals(result, wrap), wrap, cwd, how), wrap);
      handedOver = wrap.stage !== undefined;
      return wrap.stage === undefined ? checked : { ...checked, stage: wrap.stage };
    } finally {
      if (running) {
        this.staged.delete(running);
      }
      await wrap?.proxy?.close();
      // Before the stage is handed over: an empty file made for the run that it did not touch is no change of its own.
      await releaseOpened(wrap?.opened?.files ?? [], wrap?.stage?.folders.map((entry) => entry.folder) ?? wrap?.policy.writable ?? []);
      if (!handedOver && wrap?.stage !== undefined) {
        await discardStage(wrap.stage);
      }
    }
  }

  /** A failed run: the writes its sandbox refused, from its policy and what it was judged to write (../sandbox/refusedWrites). */
  private withRefusedWrites(result: TerminalCommandResult, launch: SandboxLaunch, cwd: string, how: RunHow): TerminalCommandResult {
    if (result.exitCode === 0 || result.cancelled || result.timedOut) {
      return result;
    }
    const refused = refusedWrites({ policy: launch.policy, writes: how.writes ?? [], notOpened: launch.opened?.refused ?? [], output: result.output, cwd });
    return refused.length === 0 ? result : { ...result, refusedWrites: refused.map((entry) => ({ ...entry, path: this.deps.relative(entry.path) })) };
  }

  /** Protected paths a sandboxed command created: the person (through the event) and the model (the result) are told. */
  private async checkCreated(result: TerminalCommandResult, launch: SandboxLaunch): Promise<TerminalCommandResult> {
    const absolute = await this.deps.sandbox.newlyProtected(launch);
    if (absolute.length === 0) {
      return result;
    }
    const relative = absolute.map(this.deps.relative);
    this.createdEmitter.fire({ relative, absolute });
    return { ...result, createdProtected: relative };
  }

  dispose(): void {
    this.createdEmitter.dispose();
  }
}

/** The person's warning for protected paths a command created. */
export function createdProtectedWarning(created: readonly string[]): string {
  return `Toolgate: a command created ${created.length === 1 ? 'a protected file' : `${created.length} protected files`} (${created.join(', ')}). Protected files are guarded only once they exist: review ${created.length === 1 ? 'it' : 'them'}.`;
}

/** What the command's filtering proxy refused, for the model and the person (the terminal already showed the 403s). */
function withRefusals(result: TerminalCommandResult, launch: SandboxLaunch): TerminalCommandResult {
  const refusals = [...(launch.proxy?.refusals ?? [])];
  return refusals.length === 0 ? result : { ...result, refusedConnections: refusals.map(describeRefusal), refusals };
}

export const notStarted = (reason: string): TerminalCommandResult => ({
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

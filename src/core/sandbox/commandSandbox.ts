/**
 * The sandbox as the rest of Toolgate sees it: probed once (on first need), then either a launch prefix for each
 * command or, where it cannot start, the one-line reason the gate shows while it asks for every command.
 */
import { DomainProxy, type DomainProxyOptions } from './domainProxy';
import { domainsUnderCeiling, localForwards, parseAllowedDomains } from './domains';
import { protectedIn, type SandboxInputs } from './gather';
import type { BridgeRuntime } from './networkBridge';
import { bridgeRuntime, prepareLaunch, type SandboxLaunch, type SandboxState } from './sandbox';
import { openInStage, openInWorkspace, openRefusalWords, releaseOpened } from './openOnce';
import { createStage, discardStage, stagedLaunch, unstageable, type Stage, type StagingProbe } from './stage';

export interface CommandSandboxDeps {
  probe: () => Promise<SandboxState>;
  /** The policy's inputs as the settings and folders are now. */
  inputs: () => SandboxInputs;
  log: (message: string) => void;
  /** What the network bridge runs on inside the sandbox (default: the system's Python 3, else the host's Node). */
  bridgeRuntime?: BridgeRuntime;
  /** For tests: the proxy's name resolution and the like. */
  proxyOptions?: Omit<DomainProxyOptions, 'rules'>;
  /**
   * Staged commands (./stage): where stages are made (a folder the sandbox cannot write, on the workspace's disk if
   * it can be), the `unshare` that starts them, and whether they work here (probed once, on first need).
   */
  staging?: { parent: string; unshare: string; probe: () => Promise<StagingProbe>; enabled: () => boolean };
  /**
   * toolgate.sandbox.passEnvironment: names of the host's environment that commands and MCP servers get besides the
   * allow-list of ./environment (default: none).
   */
  passEnvironment?: () => readonly string[];
}

/**
 * Why a command's changes would land in the workspace without review: staging turned off, or unavailable here. Typed,
 * so the views say what fixes each (src/core/views/unreviewed.ts); `reason` is the probe's one line.
 */
export type UnstagedWhy = 'setting-off' | 'no-sandbox' | 'not-built' | 'folder-path' | 'probe-failed' | 'no-overlay' | Extract<StagingProbe, { available: false }>['why'];

/** What macOS's sandbox has instead of a stage, said on the card, the status item and to the model. */
export const noOverlayReason = "macOS has no overlay to stage a command on: what git saw it change is told to the model and undone where its text before is known";

/** Whether a confined command's changes are reviewed before they land (staged), decided before its card is shown. */
export type StagingStatus = { staged: true } | { staged: false; why: UnstagedWhy; reason: string };

/**
 * How one command is launched: `stage`, its card said its changes are reviewed, so it runs staged or not at all;
 * `open`, the protected files (absolute) the person allowed it to write on its card, opened for this run only
 * (./openOnce); `allowDomains`, entries of toolgate.sandbox.allowedDomains added for this run only (the person chose
 * them on the card of a run the proxy refused), read with the same rules as the setting's.
 */
export interface LaunchOptions {
  stage: boolean;
  open?: readonly string[];
  allowDomains?: readonly string[];
}

/** What the gate knows about the sandbox when it judges a command. */
export type SandboxStatus = { available: true } | { available: false; reason: string };

export class CommandSandbox {
  private state: SandboxState | undefined;
  private probing: Promise<SandboxState> | undefined;
  private stagingProbe: Promise<StagingStatus> | undefined;

  constructor(private readonly deps: CommandSandboxDeps) {}

  /** Probes once; later calls get the same answer. */
  ready(): Promise<SandboxState> {
    this.probing ??= this.deps.probe().then(
      (state) => {
        this.state = state;
        this.deps.log(state.available ? `commands run in the sandbox (${state.program})` : `no sandbox: ${state.reason}; every command asks`);
        return state;
      },
      (error: unknown) => {
        const state: SandboxState = { available: false, reason: `the sandbox check failed: ${String(error)}` };
        this.state = state;
        return state;
      },
    );
    return this.probing;
  }

  /**
   * The names of the host's environment passed to what Toolgate starts, besides the allow-list: the same for a command
   * in the sandbox, one run without it and an MCP server.
   */
  passEnvironment(): readonly string[] {
    return this.deps.passEnvironment?.() ?? [];
  }

  /** The policy's inputs as the settings and folders are now (what Show Sandbox Policy reports). */
  policyInputs(): SandboxInputs {
    return this.deps.inputs();
  }

  /** For the gate: unknown until probed counts as unavailable (fail closed). */
  status(): SandboxStatus {
    const state = this.state;
    if (state === undefined) {
      return { available: false, reason: 'the sandbox has not been checked yet' };
    }
    return state.available ? { available: true } : { available: false, reason: state.reason };
  }

  /**
   * After a sandboxed command: the protected paths that exist now but were not read-only in its sandbox, because they
   * did not exist when it started (bwrap can only mount over what exists). A new `.vscode/tasks.json`, say.
   */
  async newlyProtected(launch: SandboxLaunch): Promise<string[]> {
    const guarded = launch.policy.readOnly;
    const inputs = this.deps.inputs();
    const found: string[] = [];
    for (const folder of inputs.workspaceFolders) {
      found.push(...(await protectedIn(folder, inputs.protectedGlobs)).paths);
    }
    return found.filter((entry) => !guarded.some((before) => entry === before || entry.startsWith(`${before}/`)));
  }

  /**
   * The launch prefix for a command in `cwd`, or why there is none. A command reaches the domains of
   * toolgate.sandbox.allowedDomains through a proxy of its own, which the caller closes (`launch.proxy`) once the
   * command has ended. `network` is for an MCP server, whose configuration says whether it has the network: no proxy.
   */
  /**
   * Whether a command's changes are reviewed before they land (toolgate.sandbox.reviewCommandChanges on, the sandbox
   * and the overlay work here, every workspace folder can be staged), or why not: asked before a command's card is
   * shown, so the card says it, and its launch holds to what the card said. The overlay is probed once.
   */
  async stagingStatus(): Promise<StagingStatus> {
    const staging = this.deps.staging;
    if (staging === undefined) {
      return { staged: false, why: 'not-built', reason: 'commands are not staged by this build' };
    }
    if (!staging.enabled()) {
      return { staged: false, why: 'setting-off', reason: 'toolgate.sandbox.reviewCommandChanges is off' };
    }
    const sandbox = await this.ready();
    if (!sandbox.available) {
      return { staged: false, why: 'no-sandbox', reason: sandbox.reason };
    }
    if (sandbox.engine === 'seatbelt') {
      return { staged: false, why: 'no-overlay', reason: noOverlayReason };
    }
    const refused = this.deps.inputs().workspaceFolders.map(unstageable).find((reason) => reason !== undefined);
    if (refused !== undefined) {
      return { staged: false, why: 'folder-path', reason: refused };
    }
    this.stagingProbe ??= staging.probe().then(
      (probe): StagingStatus => {
        this.deps.log(probe.available ? 'commands are staged: what they write is reviewed before it lands' : `commands cannot be staged here: ${probe.reason}`);
        return probe.available ? { staged: true } : { staged: false, why: probe.why, reason: probe.reason };
      },
      (error: unknown): StagingStatus => ({ staged: false, why: 'probe-failed', reason: `the staging check failed: ${String(error)}` }),
    );
    return this.stagingProbe;
  }

  /**
   * `stage: true`: the command's card said its changes are reviewed, so it runs staged or not at all (`notStaged`,
   * why); never quietly unstaged.
   */
  async launch(cwd: string, network?: SandboxInputs['network']): Promise<{ launch: SandboxLaunch } | { unavailable: string }>;
  async launch(cwd: string, network: SandboxInputs['network'] | undefined, options: LaunchOptions): Promise<{ launch: SandboxLaunch } | { unavailable: string } | { notStaged: string }>;
  async launch(cwd: string, network?: SandboxInputs['network'], options: Partial<LaunchOptions> = {}): Promise<{ launch: SandboxLaunch } | { unavailable: string } | { notStaged: string }> {
    const state = await this.ready();
    if (!state.available) {
      return { unavailable: state.reason };
    }
    const inputs = this.deps.inputs();
    // Decided first: a staged command's policy differs (./gather), and one whose card promised review but cannot be
    // staged now is not run at all, before anything (a proxy, a stage) is made for it.
    const staging = options.stage === true ? await this.stagingFor(inputs.workspaceFolders) : undefined;
    if (staging !== undefined && 'notStaged' in staging) {
      return staging;
    }
    // Every command without a network of its own goes through a proxy, an empty list included: what it refused is then
    // known (and named on the card, with the entry that would allow it), never guessed from the command's output.
    const filtered = network === undefined && inputs.network === 'none';
    const reachable = domainsUnderCeiling([...(inputs.allowedDomains ?? []), ...(options.allowDomains ?? [])], inputs.allowedDomainsCeiling).kept;
    const rules = filtered ? parseAllowedDomains(reachable).rules : [];
    // Seatbelt lets a command reach one loopback port: the proxy listens there, not on a socket bound into a namespace.
    const proxy = filtered ? await DomainProxy.start({ ...this.deps.proxyOptions, rules, ...(state.engine === 'seatbelt' ? { loopback: true } : {}) }) : undefined;
    let stage: Stage | undefined;
    let opened: SandboxLaunch['opened'];
    try {
      // The stage first when a protected file is opened on it (its copy goes in the stage's upper layer); on the
      // workspace, the file is opened before the policy is gathered, so a folder made for it is read-only like the rest.
      stage = staging === undefined ? undefined : await createStage(staging.parent, inputs.workspaceFolders);
      const open = options.open ?? [];
      if (open.length > 0 && state.engine === 'seatbelt') {
        // No descriptor binds in Seatbelt: the protected file stays read-only, and the card of its failure says why.
        opened = { files: [], refused: open.map((file) => ({ path: file, kind: 'seatbelt' as const })) };
      } else if (open.length > 0) {
        const result = stage === undefined ? await openInWorkspace(open, inputs.workspaceFolders) : await openInStage(open, stage);
        opened = { files: result.opened, refused: result.refused };
      }
      for (const refused of opened?.refused ?? []) {
        this.deps.log(`sandbox: ${refused.path} stays read-only for this command: ${openRefusalWords[refused.kind]}`);
      }
      const files = opened?.files ?? [];
      const writableOnce = files.map((file, index) => ({ path: file.path, ...(file.handle === undefined ? {} : { fd: 3 + index }) }));
      const fds = files.flatMap((file) => (file.handle === undefined ? [] : [file.handle.fd]));
      const { launch, notes } = await prepareLaunch(
        state,
        { ...inputs, ...(network === undefined ? {} : { network }), staged: staging !== undefined, writableOnce },
        cwd,
        proxy === undefined ? undefined : { proxy, runtime: this.deps.bridgeRuntime ?? bridgeRuntime(), forwards: localForwards(rules) },
      );
      for (const note of notes) {
        this.deps.log(`sandbox: ${note}`);
      }
      const held = { ...(opened === undefined ? {} : { opened }), ...(fds.length > 0 ? { fds } : {}) };
      if (staging === undefined || stage === undefined) {
        return { launch: { ...launch, ...held } };
      }
      return { launch: { ...launch, ...stagedLaunch(stage, staging.unshare, launch), stage, ...held } };
    } catch (error) {
      await proxy?.close();
      await releaseOpened(opened?.files ?? [], inputs.workspaceFolders);
      if (stage !== undefined) {
        await discardStage(stage);
      }
      throw error;
    }
  }

  /**
   * How the workspace folders are put behind a copy-on-write stage for a command whose card said its changes are
   * reviewed, or why they cannot be now (`notStaged`): then it is not run, never quietly unstaged.
   */
  private async stagingFor(folders: readonly string[]): Promise<{ parent: string; unshare: string } | { notStaged: string }> {
    const staging = this.deps.staging;
    const status = await this.stagingStatus();
    if (staging === undefined || !status.staged || folders.length === 0) {
      const why = status.staged ? 'there is no workspace folder to stage' : status.reason;
      this.deps.log(`not run: its card said its changes would be reviewed, but it cannot be staged now (${why})`);
      return { notStaged: why };
    }
    return staging;
  }
}

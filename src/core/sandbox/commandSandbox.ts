/**
 * The sandbox as the rest of Toolgate sees it: probed once (on first need), then either a launch prefix for each
 * command or, where it cannot start, the one-line reason the gate shows while it asks for every command.
 */
import { DomainProxy, type DomainProxyOptions } from './domainProxy';
import { localForwards, parseAllowedDomains } from './domains';
import { protectedIn, type SandboxInputs } from './gather';
import type { BridgeRuntime } from './bridge';
import { bridgeRuntime, prepareLaunch, type SandboxLaunch, type SandboxState } from './sandbox';
import { createStage, stagedLaunch, unstageable } from './staging';

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
   * Staged commands (./staging): where stages are made (a folder the sandbox cannot write, on the workspace's disk if
   * it can be), the `unshare` that starts them, and whether they work here (probed once, on first need).
   */
  staging?: { parent: string; unshare: string; probe: () => Promise<SandboxStatus>; enabled: () => boolean };
  /**
   * toolgate.sandbox.passEnvironment: names of the host's environment that commands and MCP servers get besides the
   * allow-list of ./environment (default: none).
   */
  passEnvironment?: () => readonly string[];
}

/** What the gate knows about the sandbox when it judges a command. */
export type SandboxStatus = { available: true } | { available: false; reason: string };

export class CommandSandbox {
  private state: SandboxState | undefined;
  private probing: Promise<SandboxState> | undefined;
  private stagingProbe: Promise<SandboxStatus> | undefined;

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
  /** Whether commands are staged here (toolgate.sandbox.reviewCommandChanges on, and the overlay works): probed once. */
  async stagingStatus(): Promise<SandboxStatus> {
    const staging = this.deps.staging;
    if (staging === undefined) {
      return { available: false, reason: 'commands are not staged by this build' };
    }
    if (!staging.enabled()) {
      return { available: false, reason: 'toolgate.sandbox.reviewCommandChanges is off' };
    }
    this.stagingProbe ??= staging.probe().then(
      (status) => {
        this.deps.log(status.available ? 'commands are staged: what they write is reviewed before it lands' : status.reason);
        return status;
      },
      (error: unknown) => ({ available: false, reason: `the staging check failed: ${String(error)}` }),
    );
    return this.stagingProbe;
  }

  async launch(cwd: string, network?: SandboxInputs['network'], options: { stage?: boolean } = {}): Promise<{ launch: SandboxLaunch } | { unavailable: string }> {
    const state = await this.ready();
    if (!state.available) {
      return { unavailable: state.reason };
    }
    const inputs = this.deps.inputs();
    const rules = network === undefined && inputs.network === 'none' ? parseAllowedDomains(inputs.allowedDomains ?? []).rules : [];
    const proxy = rules.length > 0 ? await DomainProxy.start({ ...this.deps.proxyOptions, rules }) : undefined;
    try {
      const { launch, notes } = await prepareLaunch(
        state,
        network === undefined ? inputs : { ...inputs, network },
        cwd,
        proxy === undefined ? undefined : { proxy, runtime: this.deps.bridgeRuntime ?? bridgeRuntime(), forwards: localForwards(rules) },
      );
      for (const note of notes) {
        this.deps.log(`sandbox: ${note}`);
      }
      return { launch: options.stage === true ? await this.staged(launch, inputs.workspaceFolders) : launch };
    } catch (error) {
      await proxy?.close();
      throw error;
    }
  }

  /**
   * The launch with the workspace folders behind a copy-on-write stage, where staging works and every folder can be
   * staged; else the launch as it is (the command writes directly, confined as before), with why in the log.
   */
  private async staged(launch: SandboxLaunch, folders: readonly string[]): Promise<SandboxLaunch> {
    const staging = this.deps.staging;
    const status = await this.stagingStatus();
    const refused = folders.map(unstageable).find((reason) => reason !== undefined);
    if (staging === undefined || !status.available || folders.length === 0 || refused !== undefined) {
      if (refused !== undefined) {
        this.deps.log(`not staged: ${refused}`);
      }
      return launch;
    }
    const stage = await createStage(staging.parent, folders);
    return { ...launch, ...stagedLaunch(stage, staging.unshare, launch), stage };
  }
}

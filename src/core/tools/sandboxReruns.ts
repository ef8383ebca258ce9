/**
 * A command that failed in the sandbox: what its card of its own offers (the hosts the proxy refused, allowed in the
 * allow-list or for one run; or once without the sandbox, always asked of the person), and the runs again they lead to.
 */
import type { CallRemedy, GateInput, GateResult } from '../approval/gate';
import { newCallId } from '../approval/broker';
import type { CommandGitEffect } from '../checkpoints/gitStatus';
import { sandboxFailure } from '../sandbox/failures';
import { entriesToAllow } from '../sandbox/networkRemedies';
import type { Stage } from '../sandbox/stage';
import type { TerminalCommandResult } from '../terminal/commandTerminal';
import type { BatchRunner } from './batchRunner';
import { discard } from './commandStage';
import type { RunHow } from './ports';
import type { Ready } from './preparedCall';
import type { RunOptions, ToolServiceDeps } from './service';

/** The remedies a refused command's card offers, by id. */
const remedyIds = { save: 'allow-hosts', once: 'allow-hosts-once' } as const;
/** How many times one command is run again in the sandbox with more hosts allowed, before only the wide fix is left. */
const maxNarrowReruns = 3;

/** One run of a command: what the terminal answered, and what git saw it change. */
export type CommandRun = TerminalCommandResult & { observed?: CommandGitEffect };

/** How a command runs again: as the terminal runs it (its checkpoint kept), confined as its first run was. */
export interface Reruns {
  run(how: RunHow): Promise<CommandRun>;
  /** How the first run was confined: a run again in the sandbox adds only the hosts allowed. */
  confined: RunHow;
  /** The stage of the latest run: a failed run's is dropped before the next; what is left, the caller removes. */
  latest: { stage: Stage | undefined };
}

/** What the runs after a failure in the sandbox came to. */
export interface AfterFailure {
  /** The last run. */
  result: CommandRun;
  /** Why the last run failed in the sandbox; undefined when it did not. */
  failure: string | undefined;
  /** The person's last answer on a failed run's card. */
  again: GateResult | undefined;
  /** The hosts the person allowed (in toolgate.sandbox.allowedDomains when `saved`, else for this command only). */
  hosts: { entries: string[]; saved: boolean };
}

/**
 * Failed because of the sandbox: the person may allow what the proxy refused (for this run, or in the allow-list) and
 * run it again in the sandbox, or run it once without it, asked on a card of its own.
 */
export async function rerunAfterFailure(runner: Pick<BatchRunner, 'deps' | 'ask'>, item: Ready, command: string, options: RunOptions, first: CommandRun, runs: Reruns): Promise<AfterFailure> {
  let result = first;
  let failure = sandboxFailure(result);
  let again: GateResult | undefined;
  const hosts: { entries: string[]; saved: boolean } = { entries: [], saved: false };
  for (let rerun = 0; failure !== undefined && !options.signal?.aborted; rerun++) {
    const offered = rerun < maxNarrowReruns ? entriesToAllow(result.refusals ?? []).filter((entry) => !hosts.entries.includes(entry)) : [];
    again = await askUnconfined(runner, item, command, failure, options, offered);
    if (again.verdict !== 'allow') {
      break;
    }
    // What the failed run staged is dropped: the next run starts from the workspace as it is.
    await discard(runner.deps.log, runs.latest.stage);
    runs.latest.stage = undefined;
    if (again.remedy === undefined) {
      result = await runs.run({ unconfined: true });
      break;
    }
    if (again.remedy === remedyIds.save && runner.deps.allowDomains) {
      try {
        await runner.deps.allowDomains(offered);
        hosts.saved = true;
      } catch (error) {
        runner.deps.log.warn(`could not add ${offered.join(', ')} to toolgate.sandbox.allowedDomains (${error instanceof Error ? error.message : String(error)}); allowed for this command only`);
      }
    }
    hosts.entries.push(...offered);
    result = await runs.run({ ...runs.confined, allowDomains: hosts.entries });
    runs.latest.stage = result.stage;
    failure = sandboxFailure(result);
  }
  return { result, failure, again, hosts };
}

/** Asks whether a command that failed in the sandbox may run once without it: always the person (no rule or grant). */
async function askUnconfined(runner: Pick<BatchRunner, 'deps' | 'ask'>, item: Ready, command: string, failure: string, options: RunOptions, hosts: readonly string[] = []): Promise<GateResult> {
  // Not editable: what runs again is exactly what failed.
  const input: GateInput = { ...item.input };
  delete input.editable;
  const call = { ...input.call, args: { ...(input.call.args as object), command }, unconfined: { failure, ...(hosts.length > 0 ? { narrowFixes: true } : {}) } };
  return await runner.ask(
    {
      ...item,
      input: {
        ...input,
        callId: newCallId(),
        call,
        // What runs is the command that ran (the person's edit included), shown as such.
        preview: input.preview.kind === 'command' ? { ...input.preview, command } : input.preview,
        notices: [hosts.length === 0
          ? `It ran in the sandbox and failed: ${failure}. "Run without sandbox" runs it once more, with all your access.`
          : `It ran in the sandbox and failed: ${failure}. Allowing ${hostList(hosts)} runs it again in the sandbox with only that added; "Run without sandbox" runs it once more with all your access.`],
        ...(hosts.length > 0 ? { remedies: hostRemedies(runner.deps, hosts) } : {}),
      },
    },
    options,
  );
}

/** The narrow fixes for refused hosts, offered before "Run without sandbox": in the allow-list, or for one run. */
function hostRemedies(deps: Pick<ToolServiceDeps, 'allowDomains'>, hosts: readonly string[]): CallRemedy[] {
  const list = hostList(hosts);
  return [
    ...(deps.allowDomains
      ? [{
          id: remedyIds.save,
          label: `Allow ${hosts.join(', ')} on this machine`,
          title: `Adds ${list} to toolgate.sandbox.allowedDomains in your user settings (commands of every workspace on this machine may then reach ${hosts.length === 1 ? 'it' : 'them'}), then runs this command again in the sandbox`,
        }]
      : []),
    {
      id: remedyIds.once,
      label: 'Allow once for this command',
      title: `Runs this command again in the sandbox with ${list} reachable for that run only; the allow-list is not changed`,
    },
  ];
}

/** Entries of the allow-list as a sentence names them: `a`, `b` and `c`. */
function hostList(hosts: readonly string[]): string {
  const quoted = hosts.map((host) => `\`${host}\``);
  return quoted.length <= 1 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} and ${quoted.at(-1) ?? ''}`;
}

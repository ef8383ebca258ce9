/**
 * An allowed command, run: exactly the command that was judged (or the person's edit of it), confined as its card
 * said, run again as the person chooses when the sandbox made it fail, its staged changes landed, and the model told
 * how it ended and what became of them.
 */
import type { GateResult } from '../approval/gate';
import { describeCommandChanges } from '../checkpoints/gitStatus';
import { commandReport } from '../terminal/report';
import { unreviewedReportLine } from '../views/unreviewed';
import type { BatchRunner } from './batchRunner';
import { discard, landStaged } from './commandStage';
import { protectedWrites } from './commandWrites';
import type { RunHow } from './ports';
import type { Ready } from './preparedCall';
import { rerunAfterFailure, type CommandRun, type Reruns } from './sandboxReruns';
import type { RunOptions, ToolCallResult } from './service';

/** Runs `command` in `cwd`, the command of an allowed call (`item`). */
export async function runCommand(runner: BatchRunner, item: Ready, decision: Extract<GateResult, { verdict: 'allow' }>, options: RunOptions, { command, cwd }: { command: string; cwd: string }): Promise<ToolCallResult> {
  const { deps } = runner;
  const timeoutSeconds = deps.terminalTimeoutSeconds();
  const run = async (how: RunHow): Promise<CommandRun> => {
    const start = () => deps.terminal.run(command, cwd, timeoutSeconds, options.signal, options.chatId, how);
    return deps.recorder ? await deps.recorder.commandRan(options.turn, { command, cwd }, start) : await start();
  };
  const promised = item.input.staging;
  const writes = protectedWrites(deps, item, decision, command, options);
  const confined: RunHow = { ...(promised ? { staged: promised.staged } : {}), ...writes };
  const first = await run(confined);
  const latest: Reruns['latest'] = { stage: first.stage };
  try {
    const { result, failure, again, hosts } = await rerunAfterFailure(runner, item, command, options, first, { run, confined, latest });
    const stage = latest.stage;
    const sandbox = failure === undefined ? undefined : { failure, rerun: again?.verdict === 'allow' && again.remedy === undefined };
    const report = commandReport(result, { command, edited: decision.edited !== undefined, timeoutSeconds, ...(sandbox ? { sandbox } : {}), ...(hosts.entries.length > 0 ? { allowedHosts: hosts } : {}) });
    const unconfinedRun = again?.verdict === 'allow' && again.remedy === undefined;
    const unreviewed = stage === undefined && !unconfinedRun && result.notRun === undefined ? unreviewedReportLine(promised) : undefined;
    const staged = stage === undefined ? undefined : await landStaged(runner, stage, command, item.input.source, options, writes.open);
    const landing = staged?.summary ?? [unreviewed, describeCommandChanges(result.observed)].filter((line) => line !== undefined && line !== '').join(' ');
    const landed = staged?.counts;
    return { ok: report.ok, output: landing === '' ? report.text : `${report.text}\n\n${landing}`, decision, ...(landed !== undefined && Object.values(landed).some((count) => count > 0) ? { landed } : {}) };
  } finally {
    // Removed after the model has its answer: a stage is in Toolgate's own cache, which no command can read, and
    // one left by a window that closed meanwhile is swept at the next start. (4 ms of a 40 ms staged command.)
    void discard(deps.log, latest.stage);
  }
}

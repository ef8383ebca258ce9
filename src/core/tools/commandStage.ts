/**
 * A staged command's stage, once it has run: what it wrote judged and landed (./stagedLanding), and the stage removed
 * (what was not landed goes with it).
 */
import { discardStage, type Stage } from '../sandbox/stage';
import type { BatchRunner } from './batchRunner';
import type { LogPort } from './ports';
import type { RunOptions } from './service';
import { landedCounts, type LandingReport } from './landingSummary';
import { StagedLanding } from './stagedLanding';

/** Judges and lands what a staged command wrote (./stagedLanding); what is not landed is discarded after. */
export async function landStaged(runner: Pick<BatchRunner, 'deps' | 'proposals'>, stage: Stage, command: string, source: string, options: RunOptions, approved: readonly string[] = []): Promise<LandingReport> {
  const { deps, proposals } = runner;
  const landing = new StagedLanding({
    gate: deps.gate,
    files: deps.files,
    resolver: deps.resolver(),
    ...(deps.recorder ? { recorder: deps.recorder } : {}),
    log: deps.log,
    ...(deps.staging?.ignored ? { ignored: deps.staging.ignored } : {}),
    landIgnored: deps.staging?.landIgnored() ?? true,
    keepProposal: (callId, proposal) => {
      proposals.set(callId, proposal);
      return () => proposals.delete(callId);
    },
  });
  try {
    return await landing.land(stage, { command, source, chatId: options.chatId, approved, ...(options.signal ? { signal: options.signal } : {}), ...(options.turn ? { turn: options.turn } : {}) });
  } catch (error) {
    deps.log.error(`staged changes of \`${command}\` could not be landed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
    return { summary: `Its changes to the workspace were staged, but reading them failed (${error instanceof Error ? error.message : String(error)}): none landed.`, counts: landedCounts([]) };
  }
}

export async function discard(log: LogPort, stage: Stage | undefined): Promise<void> {
  if (stage !== undefined) {
    await discardStage(stage).catch((error: unknown) => log.warn(`a command's stage could not be removed (${String(error)})`));
  }
}

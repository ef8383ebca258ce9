/**
 * An allowed write or edit, written: exactly what was allowed (hunk by hunk, or the person's edit), and only if the
 * file is still what its diff showed. A file that changed after its diff was shown is not written: the call asks
 * again with a fresh diff, a few times at the most.
 */
import type { GateResult } from '../approval/gate';
import { diffText } from '../diff/lineDiff';
import { describeHunkDecisions } from '../review/hunks';
import { applyWrite } from './applyWrite';
import type { BatchRunner } from './batchRunner';
import { ToolError } from './ports';
import type { Ready } from './preparedCall';
import { writtenMessage } from './results';
import type { RunOptions, ToolCallResult } from './service';
import { textToWrite } from './textToWrite';

const maxConflictRetries = 3;

/** What a write needs of the runner: its ports, and the steps a call goes through again when its file changed. */
type Writing = Pick<BatchRunner, 'deps' | 'prepare' | 'ask' | 'complete'>;

/** Writes exactly what was allowed, if the file is still what the diff showed; else asks again with a fresh diff. */
export async function writeAllowed(runner: Writing, item: Ready, decision: Extract<GateResult, { verdict: 'allow' }>, options: RunOptions, attempt: number): Promise<ToolCallResult> {
  const { deps } = runner;
  const proposal = item.proposal;
  if (!proposal) {
    throw new ToolError('no proposal was prepared');
  }
  // Hunk by hunk: the base with only the accepted hunks of the shown diff (the same diff, computed the same way).
  // A hunk without a decision (one past what the panel could show) is accepted, as the contract says.
  const shown = decision.hunks !== undefined ? diffText(proposal.base.text, proposal.newText).hunks : undefined;
  const decided = new Map((decision.hunks ?? []).map((hunk) => [hunk.index, hunk]));
  const hunkDecisions = shown?.map((_, index) => decided.get(index) ?? { index, accepted: true });
  const text = textToWrite(proposal, decision);
  // Never through a link put on its way since, nor through a hard link (./applyWrite).
  const applied = await applyWrite(deps.files, proposal.target, proposal.base, text, proposal.target.input);
  // A binary file replaced whole is not kept as a checkpoint (checkpoints hold text): its card said undo cannot bring it back.
  if (applied.kind === 'written' && proposal.base.format.kind === 'binary') {
    return { ok: true, output: writtenMessage(proposal, { text, savedToDisk: applied.savedToDisk, edited: decision.edited !== undefined }), decision };
  }
  if (applied.kind === 'written') {
    await deps.recorder?.fileWritten(options.turn, {
      path: proposal.target.absolute,
      ...(proposal.target.relative !== undefined ? { relativePath: proposal.target.relative } : {}),
      tool: item.input.call.tool,
      before: proposal.base.exists ? proposal.base.text : null,
      after: text,
    });
    const written = writtenMessage(proposal, { text, savedToDisk: applied.savedToDisk, edited: decision.edited !== undefined });
    if (shown !== undefined && hunkDecisions !== undefined) {
      const report = describeHunkDecisions(proposal.target.relative ?? proposal.target.real, proposal.base.text, proposal.newText, hunkDecisions, { hunks: shown });
      return { ok: true, output: `${written}\n${report.text}`, decision };
    }
    return { ok: true, output: written, decision };
  }
  return await askAgain(runner, item, applied.detail, decision, options, attempt);
}

/** The file changed after its diff was shown (`detail` says how): nothing was written, and the call asks again. */
async function askAgain(runner: Writing, item: Ready, detail: string, decision: Extract<GateResult, { verdict: 'allow' }>, options: RunOptions, attempt: number): Promise<ToolCallResult> {
  if (attempt >= maxConflictRetries) {
    return { ok: false, output: `Error: ${detail}, again and again; nothing was written. Read the file and try again.`, decision };
  }
  runner.deps.log.info(`${item.input.call.tool}: ${detail}; nothing was written, asking again with a fresh diff`);
  const fresh = await runner.prepare(item.request);
  if (fresh.kind === 'error') {
    return { ok: false, output: `Error: ${detail}, and the call no longer applies: ${fresh.message}. Nothing was written.` };
  }
  if (fresh.kind === 'answered') {
    return { ok: true, output: `${detail}, and it now already has exactly this content: nothing was written.` };
  }
  fresh.input.notices = [`Asked again: ${detail}, so nothing was written. This is a fresh diff.`];
  return await runner.complete(fresh, await runner.ask(fresh, options), options, attempt + 1);
}

/**
 * The files a command was judged to write, and the protected ones among them: named on its card when it is prepared,
 * opened in the sandbox for its run when the person allowed it.
 */
import path from 'node:path';
import type { GateResult } from '../approval/gate';
import type { GateCall } from '../approval/policy';
import { writesOf } from '../shell/analysis';
import { gateCall } from './gateCall';
import type { Ready } from './preparedCall';
import type { RunOptions, ToolServiceDeps } from './service';

/**
 * The files a command was judged to write (`writes`, absolute) and, of those, the protected ones (`protected`): only
 * a path named without a link on its way (one that leads elsewhere is judged where it leads, and never opened).
 */
export function judgedWrites(deps: Pick<ToolServiceDeps, 'gate' | 'resolver'>, call: GateCall | undefined, source: string, chatId: string, taskId?: string): { writes: string[]; protected: string[] } {
  const resolver = deps.resolver();
  const writes: string[] = [];
  const found: string[] = [];
  for (const target of writesOf(call?.commandAnalysis)) {
    const write = gateCall('write_file', { path: target }, resolver);
    const located = write.target;
    if (located?.root === undefined || located.relative === undefined) {
      continue;
    }
    const real = path.join(located.root, located.relative);
    writes.push(real);
    const named = located.absolute === real || located.absolute.endsWith(`/${located.relative}`);
    if (named && deps.gate.evaluate(write, { chatId, source, taskId }).kind === 'protected') {
      found.push(real);
    }
  }
  return { writes, protected: found };
}

/**
 * What a command about to run may write: the files it was judged to write, and the protected ones the person allowed
 * it to write on its card (`open`). Only an Allow by the person (a rule or grant cannot allow a protected write), and
 * only of the command that runs (the edited one's own analysis, if edited).
 */
export function protectedWrites(deps: Pick<ToolServiceDeps, 'gate' | 'resolver'>, item: Ready, decision: Extract<GateResult, { verdict: 'allow' }>, command: string, options: RunOptions): { writes: string[]; open: string[] } {
  const ran = decision.edited === undefined ? item.input.call : item.input.editedCall?.(command);
  const found = judgedWrites(deps, ran, item.input.source, options.chatId, options.turn?.taskId);
  return { writes: found.writes, open: decision.decidedBy === 'person' ? found.protected : [] };
}

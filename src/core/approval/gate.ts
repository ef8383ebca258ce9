/**
 * The gate: policy + broker + grants + audit. `request()` decides each call of a batch; calls that ask wait in the
 * broker (shown together in the panel) until the person, a timeout or a cancellation settles them. Every outcome
 * is written to the audit log with who decided and why.
 */
import path from 'node:path';
import type {
  BatchMessage,
  CommandPreview,
  DecideMessage,
  GrantOptionView,
  GrantView,
  PendingCallView,
  Preview,
} from '../../shared/approvals';
import type { AuditLog } from '../audit/auditLog';
import { Emitter, type Disposable } from '../disposable';
import { builtinTools, isBuiltinTool } from '../tools/definitions';
import { Broker, newCallId, type Resolution, type Waiting } from './broker';
import { canonicalJson } from './hash';
import { describeGrant, newGrantId, type Grant, type GrantMatcher, type GrantStore } from './grants';
import { decide, type Decision, type GateCall, type PolicyContext } from './policy';

export interface GateInput {
  /** The id the call will carry (a fresh one if absent), so the caller can key its own state by it. */
  callId?: string;
  call: GateCall;
  preview: Preview;
  /** Who asks: 'agent', an extension id, 'mcp:<server>'. */
  source: string;
  /** What "Edit then allow" edits, if the call supports it. */
  editable?: { kind: 'content' | 'command'; text: string };
  /** Why this call is shown again, or anything else the person must read first. */
  notices?: string[];
}

export type GateResult =
  | {
      verdict: 'allow';
      callId: string;
      decidedBy: 'person' | 'grant' | 'rule' | 'setting' | 'policy';
      scope?: 'once' | 'session' | 'workspace';
      reason: string;
      /** Set when the person edited the content or command before allowing: this is what must run. */
      edited?: string;
    }
  | {
      verdict: 'deny';
      callId: string;
      decidedBy: 'person' | 'timeout' | 'cancel' | 'policy';
      reason: string;
      /** The person's own words, for the model. */
      personReason?: string;
    };

interface GrantOption {
  id: string;
  label: string;
  matcher: GrantMatcher;
}

interface PendingEntry extends Waiting {
  input: GateInput;
  decision: Decision;
  options: GrantOption[];
  /** What the panel shows: built once, when the call starts waiting (a call's view never changes). */
  view: PendingCallView;
}

type PersonDecision = Pick<DecideMessage, 'action' | 'reason' | 'grantOption' | 'edited'>;

export interface GateDeps {
  grants: GrantStore;
  policy: () => Omit<PolicyContext, 'grants'>;
  audit: AuditLog;
  timeoutSeconds: () => number;
  now?: () => Date;
}

export class Gate implements Disposable {
  private readonly broker = new Broker<PendingEntry, PersonDecision>();
  private readonly onDidChangeEmitter = new Emitter<void>();
  /** The waiting calls or the grants changed. */
  readonly onDidChange = this.onDidChangeEmitter.event;
  private readonly subscriptions: Disposable[] = [];

  constructor(private readonly deps: GateDeps) {
    this.subscriptions.push(
      this.broker.onDidChange(() => this.onDidChangeEmitter.fire()),
      deps.grants.onDidChange(() => this.onDidChangeEmitter.fire()),
    );
  }

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  /** The verdict and reason the policy gives right now; nothing is asked, run or logged. */
  evaluate(call: GateCall, chatId = 'api'): Decision {
    return decide(call, { ...this.deps.policy(), grants: this.deps.grants.active(chatId) });
  }

  /** Decides a batch of calls (one model turn); those that ask wait together. One promise per input, in order. */
  request(inputs: GateInput[], options: { chatId: string; signal?: AbortSignal }): Promise<GateResult>[] {
    const batchId = newCallId();
    const results: (Promise<GateResult> | undefined)[] = [];
    const asking: PendingEntry[] = [];
    const askingIndex: number[] = [];
    const timeoutSeconds = this.deps.timeoutSeconds();
    inputs.forEach((input, index) => {
      const callId = input.callId ?? newCallId();
      const decision = this.evaluate(input.call, options.chatId);
      if (decision.verdict !== 'ask') {
        const result: GateResult =
          decision.verdict === 'allow'
            ? { verdict: 'allow', callId, decidedBy: decision.decidedBy, reason: decision.reason }
            : { verdict: 'deny', callId, decidedBy: 'policy', reason: decision.reason };
        this.record(callId, input, result, decision.grant?.scope);
        results[index] = Promise.resolve(result);
        return;
      }
      const waitingSince = this.now();
      const grantOptionsForCall = decision.grantable ? grantOptions(input.call) : [];
      const entry: PendingEntry = {
        callId,
        batchId,
        chatId: options.chatId,
        argsHash: input.call.argsHash,
        input,
        decision,
        options: grantOptionsForCall,
        view: this.viewOf(callId, batchId, input, decision, grantOptionsForCall, options.chatId, waitingSince, timeoutSeconds),
      };
      this.deps.audit.record({
        time: entry.view.waitingSince,
        callId,
        tool: input.call.tool,
        argsHash: input.call.argsHash,
        verdict: 'ask',
        decidedBy: 'policy',
        reason: decision.reason,
        source: input.source,
      });
      asking.push(entry);
      askingIndex.push(index);
    });
    if (asking.length > 0) {
      const waits = this.broker.add(asking, {
        timeoutSeconds,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      waits.forEach((wait, i) => {
        const entry = asking[i];
        const index = askingIndex[i];
        if (entry && index !== undefined) {
          results[index] = wait.then((resolution) => this.settle(entry, resolution));
        }
      });
    }
    return results.map((result, index) => result ?? Promise.reject(new Error(`no result for call ${index}`)));
  }

  private async settle(entry: PendingEntry, resolution: Resolution<PersonDecision>): Promise<GateResult> {
    const { callId, input } = entry;
    let result: GateResult;
    let scope: 'once' | 'session' | 'workspace' | undefined;
    switch (resolution.kind) {
      case 'timeout':
        result = {
          verdict: 'deny',
          callId,
          decidedBy: 'timeout',
          reason: `denied: nobody answered within ${resolution.afterSeconds} s`,
        };
        break;
      case 'cancel':
        result = { verdict: 'deny', callId, decidedBy: 'cancel', reason: `denied: ${resolution.reason}` };
        break;
      case 'auto':
        result = { verdict: 'allow', callId, decidedBy: 'grant', reason: resolution.reason };
        break;
      case 'person': {
        const decision = resolution.decision;
        if (decision.action === 'deny') {
          const personReason = decision.reason?.trim();
          result = {
            verdict: 'deny',
            callId,
            decidedBy: 'person',
            reason: personReason ? `denied by the person: ${personReason}` : 'denied by the person',
            ...(personReason ? { personReason } : {}),
          };
        } else if (decision.action === 'allow-edited') {
          scope = 'once';
          result = {
            verdict: 'allow',
            callId,
            decidedBy: 'person',
            scope,
            reason: 'allowed once by the person, after editing',
            edited: decision.edited ?? '',
          };
        } else if (decision.action === 'allow-once') {
          scope = 'once';
          result = { verdict: 'allow', callId, decidedBy: 'person', scope, reason: 'allowed once by the person' };
        } else {
          scope = decision.action === 'allow-session' ? 'session' : 'workspace';
          const option = entry.options.find((candidate) => candidate.id === decision.grantOption) ?? entry.options[0];
          let reason = `allowed by the person for this ${scope}`;
          if (option) {
            const grant: Grant = {
              id: newGrantId(),
              tool: input.call.tool,
              matcher: option.matcher,
              scope,
              createdAt: this.now().toISOString(),
              ...(input.call.external?.definitionHash !== undefined
                ? { definitionHash: input.call.external.definitionHash }
                : {}),
            };
            await this.deps.grants.add(grant, entry.chatId);
            reason = `allowed by the person: new ${describeGrant(grant)}`;
            this.releaseCovered(entry.chatId);
          }
          result = { verdict: 'allow', callId, decidedBy: 'person', scope, reason };
        }
        break;
      }
    }
    this.record(callId, input, result, scope);
    return result;
  }

  /** After a new grant, calls still waiting that it now covers are allowed without asking again. */
  private releaseCovered(chatId: string): void {
    for (const waiting of this.broker.waiting()) {
      if (waiting.chatId !== chatId) {
        continue;
      }
      const decision = this.evaluate(waiting.input.call, chatId);
      if (decision.verdict === 'allow') {
        this.broker.resolveAuto(waiting.callId, decision.reason);
      }
    }
  }

  private record(
    callId: string,
    input: GateInput,
    result: GateResult,
    scope: 'once' | 'session' | 'workspace' | undefined,
  ): void {
    this.deps.audit.record({
      time: this.now().toISOString(),
      callId,
      tool: input.call.tool,
      argsHash: input.call.argsHash,
      verdict: result.verdict,
      decidedBy: result.decidedBy,
      ...(scope ? { scope } : {}),
      reason: result.reason,
      source: input.source,
      ...(result.verdict === 'allow' && result.edited !== undefined ? { edited: true } : {}),
    });
  }

  /** A decision from the panel. Anything that does not address a waiting call with the shown hash is refused. */
  decide(message: DecideMessage): { ok: true } | { ok: false; error: string } {
    const entry = this.broker.get(message.callId);
    if (entry) {
      const problem = this.checkAction(entry, message);
      if (problem !== undefined) {
        return { ok: false, error: problem };
      }
    }
    return this.broker.decide(message.callId, message.argsHash, {
      action: message.action,
      ...(message.reason !== undefined ? { reason: message.reason } : {}),
      ...(message.grantOption !== undefined ? { grantOption: message.grantOption } : {}),
      ...(message.edited !== undefined ? { edited: message.edited } : {}),
    });
  }

  private checkAction(entry: PendingEntry, message: DecideMessage): string | undefined {
    if (message.action === 'allow-session' || message.action === 'allow-workspace') {
      if (!entry.decision.grantable || entry.options.length === 0) {
        return `call ${entry.callId}: no grant can cover it (${entry.decision.reason}); allow it once instead`;
      }
      if (message.grantOption !== undefined && !entry.options.some((option) => option.id === message.grantOption)) {
        return `call ${entry.callId}: '${message.grantOption}' is not one of the offered grant scopes`;
      }
    }
    if (message.action === 'allow-edited') {
      if (!entry.input.editable) {
        return `call ${entry.callId}: this call cannot be edited`;
      }
      if (message.edited === undefined) {
        return `call ${entry.callId}: allow-edited needs the edited text`;
      }
      if (entry.input.editable.kind === 'command' && message.edited.trim() === '') {
        return `call ${entry.callId}: the edited command is empty`;
      }
    }
    return undefined;
  }

  /** Allow all / Deny all: applies to the listed calls whose hash still matches; the rest keep waiting. */
  decideAll(message: BatchMessage): { decided: number; errors: string[] } {
    let decided = 0;
    const errors: string[] = [];
    for (const { callId, argsHash } of message.calls) {
      const outcome = this.broker.decide(callId, argsHash, {
        action: message.action === 'allow-all' ? 'allow-once' : 'deny',
        ...(message.reason !== undefined ? { reason: message.reason } : {}),
      });
      if (outcome.ok) {
        decided++;
      } else {
        errors.push(outcome.error);
      }
    }
    return { decided, errors };
  }

  /** Denies every waiting call (of one chat, or all). */
  cancel(reason: string, chatId?: string): number {
    return this.broker.cancel(reason, (entry) => chatId === undefined || entry.chatId === chatId);
  }

  get waitingCount(): number {
    return this.broker.waiting().length;
  }

  pendingViews(): PendingCallView[] {
    return this.broker.waiting().map((entry) => entry.view);
  }

  /** Whether a call is waiting for the person. */
  isWaiting(callId: string): boolean {
    return this.broker.get(callId) !== undefined;
  }

  /** The panel's view of a call that starts waiting: everything it shows, derived from the input and the decision. */
  private viewOf(
    callId: string,
    batchId: string,
    input: GateInput,
    decision: Decision,
    options: GrantOption[],
    chatId: string,
    waitingSince: Date,
    timeoutSeconds: number,
  ): PendingCallView {
    const external = input.call.external;
    const pinned = external?.definitionHash;
    const redefined =
      pinned !== undefined &&
      this.deps.grants
        .active(chatId)
        .some((grant) => grant.tool === input.call.tool && grant.definitionHash !== undefined && grant.definitionHash !== pinned);
    const notices = [
      ...(input.notices ?? []),
      ...(redefined
        ? ['The server changed this tool (its name, description or input schema) since you granted it, so that grant no longer applies. Read the description below again.']
        : []),
    ];
    const preview = input.preview.kind === 'command' ? { ...input.preview, analysis: commandAnalysisLines(input.call, decision) } : input.preview;
    return {
      callId,
      batchId,
      tool: input.call.tool,
      source: input.source,
      reason: decision.reason,
      warnings: [...notices, ...decision.warnings],
      argsHash: input.call.argsHash,
      argsJson: JSON.stringify(JSON.parse(canonicalJson(input.call.args)), null, 2),
      preview,
      grantable: decision.grantable && options.length > 0,
      grantOptions: options.map(({ id, label }): GrantOptionView => ({ id, label })),
      ...(external?.server !== undefined
        ? { toolInfo: { server: external.server, description: external.description ?? '', annotations: external.annotations ?? [] } }
        : {}),
      ...(input.editable ? { editable: input.editable } : {}),
      waitingSince: waitingSince.toISOString(),
      ...(timeoutSeconds > 0 ? { timesOutAt: new Date(waitingSince.getTime() + timeoutSeconds * 1000).toISOString() } : {}),
    };
  }

  grantViews(chatId: string): GrantView[] {
    const view = (grant: Grant): GrantView => ({
      id: grant.id,
      scope: grant.scope,
      label: describeGrant(grant),
      createdAt: grant.createdAt,
    });
    return [...this.deps.grants.sessionGrants(chatId).map(view), ...this.deps.grants.workspaceGrants().map(view)];
  }

  dispose(): void {
    this.broker.dispose();
    for (const subscription of this.subscriptions.splice(0)) {
      subscription.dispose();
    }
    this.onDidChangeEmitter.dispose();
  }
}

/** The grant scopes offered for a call, narrowest first. */
export function grantOptions(call: GateCall): GrantOption[] {
  const options: GrantOption[] = [
    { id: 'exact', label: 'This exact call', matcher: { kind: 'exact', argsHash: call.argsHash } },
  ];
  const builtin = isBuiltinTool(call.tool) ? builtinTools[call.tool] : undefined;
  const relative = call.target?.relative;
  if (builtin?.risk === 'write' && relative !== undefined && relative !== '') {
    options.push({ id: 'path', label: `This file: ${relative}`, matcher: { kind: 'path', path: relative } });
    const folder = path.posix.dirname(relative);
    if (folder !== '.') {
      options.push({ id: 'folder', label: `Files in ${folder}/**`, matcher: { kind: 'glob', glob: `${folder}/**` } });
    }
  }
  if (call.tool === 'run_in_terminal') {
    // Word prefixes only for a line that is one static command; never a grant for every command.
    const only = call.commandAnalysis?.commands.length === 1 ? call.commandAnalysis.commands[0] : undefined;
    if (only && !only.dynamic && only.words.length > 0) {
      const words = only.words;
      options.push({
        id: 'cmd-full',
        label: `Commands starting with \`${words.join(' ')}\``,
        matcher: { kind: 'command', prefix: words.join(' ') },
      });
      for (let count = Math.min(words.length - 1, 3); count >= 1; count--) {
        const prefix = words.slice(0, count).join(' ');
        options.push({
          id: `cmd-${count}`,
          label: `Commands starting with \`${prefix}\``,
          matcher: { kind: 'command', prefix },
        });
      }
    }
    return options;
  }
  options.push({
    id: 'tool',
    label: `Every ${call.external?.label ?? call.tool} call`,
    matcher: { kind: 'tool' },
  });
  if (call.external?.server !== undefined) {
    options.push({
      id: 'server',
      label: `Every tool of the MCP server ${call.external.server}`,
      matcher: { kind: 'server', server: call.external.server },
    });
  }
  return options;
}

/** The analysis the panel shows for a command: each sub-command with its verdict, the redirects, the concerns, and the line's verdict. */
export function commandAnalysisLines(call: GateCall, decision: Decision): CommandPreview['analysis'] {
  const analysis = call.commandAnalysis;
  return [
    ...(decision.commandDetails ?? []).map((detail) => ({ text: `${detail.text}: ${detail.reason}`, verdict: detail.verdict })),
    ...(analysis?.redirects ?? []).map((redirect) => ({
      text: `redirect ${redirect.raw}${redirect.target !== undefined ? ` -> ${redirect.target}` : ' (target depends on an expansion)'}`,
      verdict: 'info' as const,
    })),
    ...(analysis?.concerns ?? []).map((concern) => ({ text: concern.detail, verdict: 'ask' as const })),
    { text: decision.reason, verdict: decision.verdict },
  ];
}

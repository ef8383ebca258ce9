/**
 * The policy engine: judge(call, context) -> { verdict, reason }. Pure and fast: all I/O (resolving paths, reading
 * settings and grants) happens before, and the result is the same for the same inputs.
 *
 * Order (first match wins):
 *  1. unknown tool -> ask; a tool that only asks the person (ask_user) -> allow
 *  2. a write into Toolgate's own storage (audit log, state) -> deny
 *  3. untrusted workspace -> ask (nothing is auto-allowed)
 *  4. a write or a read that resolves outside every workspace root -> ask, with a warning
 *  5. a write to a protected path -> ask, whatever grant or rule exists; so does a command's staged change to a file
 *     the person changed while it ran
 *  6. a `false` rule (edits glob, terminal prefix or /regex/) -> ask; a `false` rule beats any `true` rule
 *  7. a terminal command the analysis cannot vouch for -> ask (unless the tool is not gated); a command that would run
 *     without the OS sandbox (none here, or the person's "run without the sandbox" after it failed in it) -> ask,
 *     whatever rule, grant or setting exists
 *  8. the tool is not gated -> allow
 *  9. a matching grant (session or workspace) -> allow
 * 10. a `true` rule -> allow
 * 11. otherwise -> ask, because the tool is gated
 *
 * A managed settings file (../managed/) comes before all of it: its deny rules deny, whatever else would allow; it
 * requires the sandbox (a command that would run unconfined is denied, not asked); its ask rules make a call ask that
 * would otherwise be allowed, and no grant may cover it; and it narrows the person's rules and grants first
 * (managedRules.ts).
 */
import { defaultGatedTools, type RuleSetting } from '../settings';
import { builtinTools, isBuiltinTool } from '../toolDefinitions';
import { firstMatchingGlob } from './glob';
import type { CommandAnalysis } from '../shell/analysis';
import { evaluateCommand, splitRules, type CommandVerdict, type RuleContext, type SubVerdict } from '../shell/rules';
import { grantMatches, type Grant, type GrantSubject } from './grants';
import type { ResolvedPath } from './paths';
import { isInside } from './paths';
import { cardSentence, reasonSentence, writeClause, type Because, type JudgementKind, type Verdict } from './verdictSentences';
import type { ManagedPolicy } from '../managed/managedSettings';
import { managedVerdict, narrowedInputs } from './managedRules';

export type { Because, JudgementKind, Verdict } from './verdictSentences';

/** Who or what produced a verdict, for the audit log and the panel. */
export type DecidedBy = 'policy' | 'rule' | 'grant' | 'setting' | 'managed';

/** What let a call run without asking: `true` keys of a setting, or a grant the person made. */
export type AllowedBy = { kind: 'rule'; setting: RuleSetting; keys: string[] } | { kind: 'grant'; grant: Grant };

export interface Judgement {
  verdict: Verdict;
  /** `because.kind`, at the top for the many readers that only branch on it. */
  kind: JudgementKind;
  /** Why, typed, with the facts each audience's sentence is made from (verdictSentences.ts). */
  because: Because;
  /** For the audit log, the model and the API: "asks: edits to .vscode/** always ask" (reasonSentence). */
  reason: string;
  /** The same, as one plain sentence for the person's card: "Writes a file; writes always ask (toolgate.gatedTools)." */
  plain: string;
  /** verdict allow by a rule or grant: which, typed, so the chat can name it and offer to revoke or change it. */
  allowedBy?: AllowedBy;
  decidedBy: DecidedBy;
  /** Things the person must see even when asked anyway (for example: the target is outside the workspace). */
  warnings: string[];
  /** The grant that allowed the call, if one did. */
  grant?: Grant;
  /** Whether a grant or `true` rule may allow this kind of call at all (false for protected paths, outside, untrusted). */
  grantable: boolean;
  /**
   * A command that would run without the sandbox (none here, or once more after it failed in it): only the person's
   * explicit "Run without sandbox" allows it, never Allow once, Allow all, a notification or a keyboard shortcut.
   */
  runsUnconfined?: boolean;
  /** For terminal calls: each sub-command with its verdict and reason, for the panel. */
  commandDetails?: SubVerdict[];
  /** For terminal calls that ask: the sub-command (one of commandDetails) the plain sentence is about. */
  commandSubject?: SubVerdict;
}

/** What only some judgements carry. */
type Extras = Pick<Judgement, 'allowedBy' | 'grant' | 'runsUnconfined' | 'commandDetails' | 'commandSubject'>;

/** What the engine knows about one call, after I/O. */
export interface GateCall {
  tool: string;
  args: unknown;
  argsHash: string;
  /** The file the call writes or reads, or the terminal's working folder, resolved. */
  target?: ResolvedPath;
  /** For run_in_terminal: the parsed command line (sub-commands, redirects, concerns). */
  commandAnalysis?: CommandAnalysis;
  /**
   * Set by Toolgate (never from a call's arguments) when a command that failed in the sandbox would run again without
   * it: why it failed there. Such a call always asks.
   */
  unconfined?: { failure: string; narrowFixes?: boolean };
  /**
   * Set by Toolgate (never from a call's arguments) for a change a staged command made to a file the person changed
   * while it ran: how. Such a change always asks, so the person's version is never replaced unseen.
   */
  changedMeanwhile?: string;
  /** For tools not built in (MCP, other extensions): known to the caller, with whether it is gated. */
  external?: {
    gated: boolean;
    definitionHash?: string;
    label: string;
    /** MCP: the server, the tool's description and its annotations (shown, never trusted). */
    server?: string;
    description?: string;
    annotations?: string[];
  };
}

export interface PolicyContext {
  gatedTools: Readonly<Record<string, boolean>>;
  editRules: Readonly<Record<string, boolean>>;
  terminalRules: Readonly<Record<string, boolean>>;
  protectedPaths: readonly string[];
  trusted: boolean;
  grants: readonly Grant[];
  /** Real paths of folders the agent may never write (Toolgate's own storage). */
  forbiddenRoots: readonly string[];
  /** Whether commands run in the OS sandbox here; where not, no rule, grant or setting allows one. */
  sandbox: { available: true } | { available: false; reason: string };
  /**
   * Where an absolute path a command hands to the kernel really is (symlinks followed component by component before
   * `..`, as the kernel does): inside which root, and relative to it.
   */
  locate(absolute: string): ResolvedPath;
  /** The managed settings file, when one is honoured: it narrows everything above (managedRules.ts). */
  managed?: ManagedPolicy | undefined;
}

/**
 * Every judgement is made here: its sentences rendered once from its facts, then what only some carry. One shape in
 * one order, and no copies: judge() runs for every call, and copying objects of many shapes cost more than deciding.
 */
function judged(verdict: Verdict, because: Because, decidedBy: DecidedBy, warnings: string[], grantable: boolean, extras?: Extras): Judgement {
  const judgement: Judgement = {
    verdict,
    kind: because.kind,
    because,
    reason: reasonSentence(verdict, because),
    plain: cardSentence(because),
    decidedBy,
    warnings,
    grantable,
  };
  if (extras !== undefined) {
    if (extras.allowedBy !== undefined) {
      judgement.allowedBy = extras.allowedBy;
    }
    if (extras.grant !== undefined) {
      judgement.grant = extras.grant;
    }
    if (extras.runsUnconfined !== undefined) {
      judgement.runsUnconfined = extras.runsUnconfined;
    }
    if (extras.commandDetails !== undefined) {
      judgement.commandDetails = extras.commandDetails;
    }
    if (extras.commandSubject !== undefined) {
      judgement.commandSubject = extras.commandSubject;
    }
  }
  return judgement;
}

const ask = (because: Because, decidedBy: DecidedBy, warnings: string[], grantable: boolean, extras?: Extras): Judgement =>
  judged('ask', because, decidedBy, warnings, grantable, extras);

/** A command's sub-commands, carried over when a judgement of it is replaced. */
const commandOf = (judgement: Judgement): Extras => ({
  ...(judgement.commandDetails !== undefined ? { commandDetails: judgement.commandDetails } : {}),
  ...(judgement.commandSubject !== undefined ? { commandSubject: judgement.commandSubject } : {}),
});

export function judge(call: GateCall, context: PolicyContext): Judgement {
  const managed = context.managed;
  if (managed === undefined) {
    return judgeUnmanaged(call, context);
  }
  const narrowed = narrowedInputs(context, managed, defaultGatedTools);
  const rules = managedVerdict(managed, {
    tool: call.tool,
    builtin: isBuiltinTool(call.tool),
    target: call.target,
    commandAnalysis: call.commandAnalysis,
    locate: (absolute) => context.locate(absolute),
  });
  if (rules?.verdict === 'deny') {
    return judged('deny', rules.because, 'managed', [], false);
  }
  const judgement = judgeUnmanaged(call, narrowed);
  if (call.tool === 'run_in_terminal' && managed.sandbox.required && judgement.runsUnconfined === true) {
    const why = call.unconfined !== undefined ? `it failed in the sandbox (${call.unconfined.failure})` : context.sandbox.available ? 'it would run unconfined' : `there is no sandbox here (${context.sandbox.reason})`;
    return judged('deny', { kind: 'managed', file: managed.file, sandboxRequired: why }, 'managed', judgement.warnings, false, commandOf(judgement));
  }
  if (rules?.verdict === 'ask' && judgement.verdict !== 'deny') {
    return ask(rules.because, 'managed', judgement.warnings, false, {
      ...(judgement.runsUnconfined === true ? { runsUnconfined: true } : {}),
      ...commandOf(judgement),
    });
  }
  return judgement;
}

function judgeUnmanaged(call: GateCall, context: PolicyContext): Judgement {
  if (call.tool !== 'run_in_terminal') {
    return judgeCall(call, context);
  }
  // A command: what the rules say, then the sandbox's floor (fail closed): without it nothing runs unasked.
  const judgement = judgeCall(call, context);
  if (call.unconfined !== undefined) {
    // What allowed it otherwise stays named: the person sees which grant or rule would have let it run confined.
    return ask({ kind: 'unconfined', failure: call.unconfined.failure, ...(call.unconfined.narrowFixes === true ? { narrowFixes: true } : {}) }, 'policy', judgement.warnings, false, {
      ...(judgement.allowedBy !== undefined ? { allowedBy: judgement.allowedBy } : {}),
      ...(judgement.grant !== undefined ? { grant: judgement.grant } : {}),
      runsUnconfined: true,
      ...commandOf(judgement),
    });
  }
  if (context.sandbox.available) {
    return judgement;
  }
  const warnings = [...judgement.warnings, `No sandbox here (${context.sandbox.reason}): if allowed, this command runs unconfined, with all your access.`];
  if (judgement.verdict !== 'allow') {
    return judged(judgement.verdict, judgement.because, judgement.decidedBy, warnings, false, {
      ...(judgement.verdict === 'ask' ? { runsUnconfined: true } : {}),
      ...commandOf(judgement),
    });
  }
  return ask({ kind: 'unconfined', noSandbox: context.sandbox.reason, otherwise: judgement.because }, 'policy', warnings, false, {
    runsUnconfined: true,
    ...commandOf(judgement),
  });
}

function judgeCall(call: GateCall, context: PolicyContext): Judgement {
  const warnings: string[] = [];
  const builtin = isBuiltinTool(call.tool) ? builtinTools[call.tool] : undefined;
  if (!builtin && !call.external) {
    return ask({ kind: 'unknown-tool', tool: call.tool }, 'policy', warnings, false);
  }
  const risk = builtin?.risk ?? 'execute';
  const label = builtin ? call.tool : (call.external?.label ?? call.tool);
  const target = call.target;
  const writes = risk === 'write';

  if (risk === 'interact') {
    return judged('allow', { kind: 'interact', label }, 'policy', warnings, false);
  }

  if (writes && target && context.forbiddenRoots.some((root) => isInside(root, target.real))) {
    return judged('deny', { kind: 'own-storage', path: target.input }, 'policy', warnings, false);
  }

  if (target && target.root === undefined) {
    warnings.push(`${target.input} resolves to ${target.real}, outside every workspace folder`);
  }

  if (!context.trusted) {
    return ask({ kind: 'untrusted' }, 'policy', warnings, false);
  }

  if (target && target.root === undefined) {
    return ask({ kind: 'outside', risk: writes ? 'write' : risk === 'execute' ? 'execute' : 'read', real: target.real }, 'policy', warnings, false);
  }

  const relative = target?.relative;
  if (writes && relative !== undefined) {
    const hit = firstMatchingGlob(context.protectedPaths, relative);
    if (hit !== undefined) {
      // A managed file's protected path names the file it comes from, not the person's setting.
      const managedFile = context.managed?.protectedPaths.includes(hit) === true ? context.managed.file : undefined;
      return ask({ kind: 'protected', path: relative, glob: hit, ...(managedFile !== undefined ? { managedFile } : {}) }, managedFile !== undefined ? 'managed' : 'setting', warnings, false);
    }
    // Another name of the same file (a hard link) is judged as that file: writing one writes the other.
    for (const other of target?.sameFile?.others ?? []) {
      const glob = firstMatchingGlob(context.protectedPaths, other);
      if (glob !== undefined) {
        return ask({ kind: 'protected', path: relative, glob, sameFileAs: other }, 'setting', warnings, false);
      }
    }
    if (target?.sameFile?.complete === false) {
      return ask({ kind: 'protected', path: relative, glob: '', unfound: target.sameFile.names - 1 - target.sameFile.others.length }, 'setting', warnings, false);
    }
    if (call.changedMeanwhile !== undefined) {
      return ask({ kind: 'changed-meanwhile', path: relative, how: call.changedMeanwhile }, 'policy', warnings, false);
    }
    const denyRule = firstMatchingGlob(splitRules(context.editRules).deny, relative);
    if (denyRule !== undefined) {
      return ask({ kind: 'false-rule', setting: 'toolgate.autoApprove.edits', path: relative, key: denyRule }, 'rule', warnings, true);
    }
  }

  // Without the managed file's autoApproveRules, a server's `requireApproval: never` is a setting that cannot un-gate.
  const gated = builtin ? context.gatedTools[call.tool] !== false : call.external?.gated !== false || context.managed?.grants.autoApproveRules === false;
  if (call.tool === 'run_in_terminal') {
    return judgeCommand(call, context, gated, warnings);
  }

  if (!gated) {
    return judged('allow', { kind: 'not-gated', label }, 'setting', warnings, true,
      builtin ? { allowedBy: { kind: 'rule', setting: 'toolgate.gatedTools', keys: [call.tool] } } : undefined);
  }

  // Filled key by key (each optional one only when there): spreads made an object per key of every call judged.
  const subject: GrantSubject = { tool: call.tool, argsHash: call.argsHash };
  if (relative !== undefined && writes) {
    subject.relativePath = relative;
  }
  if (call.external?.definitionHash !== undefined) {
    subject.definitionHash = call.external.definitionHash;
  }
  if (call.external?.server !== undefined) {
    subject.mcpServer = call.external.server;
  }
  const grant = context.grants.find((candidate) => grantMatches(candidate, subject));
  if (grant) {
    return judged('allow', { kind: 'grant', grant }, 'grant', warnings, true, { allowedBy: { kind: 'grant', grant }, grant });
  }

  if (writes && relative !== undefined) {
    const allowRule = firstMatchingGlob(splitRules(context.editRules).allow, relative);
    if (allowRule !== undefined) {
      return judged('allow', { kind: 'rule', setting: 'toolgate.autoApprove.edits', key: allowRule, path: relative }, 'rule', warnings, true, {
        allowedBy: { kind: 'rule', setting: 'toolgate.autoApprove.edits', keys: [allowRule] },
      });
    }
  }
  return ask({
    kind: 'gated',
    label,
    ...(builtin ? { builtin: call.tool } : {}),
    ...(call.external?.server !== undefined ? { server: call.external.server } : {}),
  }, 'setting', warnings, true);
}

/**
 * The shell rules' view of the policy for one call: where a path is, and how a file a command writes (a redirect,
 * `--output`) is judged: exactly as write_file on that path would be. A class rather than closures: it is made for
 * every terminal call.
 */
class CommandRuleContext implements RuleContext {
  readonly rules: Readonly<Record<string, boolean>>;

  constructor(
    private readonly context: PolicyContext,
    readonly extraAllowPrefixes: readonly string[],
  ) {
    this.rules = context.terminalRules;
  }

  /** The same context with other grant prefixes. */
  withPrefixes(extraAllowPrefixes: readonly string[]): CommandRuleContext {
    return new CommandRuleContext(this.context, extraAllowPrefixes);
  }

  isInsideWorkspace(absolute: string): boolean {
    return this.context.locate(absolute).root !== undefined;
  }

  judgeWrite(absolute: string): { allowed: boolean; reason: string } {
    const target = this.context.locate(absolute);
    const write = judge({ tool: 'write_file', args: { path: target.real }, argsHash: '', target }, this.context);
    return { allowed: write.verdict === 'allow', reason: writeClause(write.verdict, write.because) };
  }

  isProtected(absolute: string): string | undefined {
    const relative = this.context.locate(absolute).relative;
    return relative === undefined ? undefined : firstMatchingGlob(this.context.protectedPaths, relative);
  }
}

/**
 * A terminal call: allowed without asking only if every sub-command is allowed by a `true` rule or a command grant,
 * none matches a `false` rule, no redirect writes outside the workspace or into a protected path, and nothing in the
 * line runs code the rules did not see. An exact grant re-allows the identical line only under the same conditions.
 */
function judgeCommand(call: GateCall, context: PolicyContext, gated: boolean, warnings: string[]): Judgement {
  const analysis = call.commandAnalysis;
  if (!analysis) {
    return ask({ kind: 'command' }, 'policy', warnings, false);
  }
  // The person's command grants: matched per sub-command, word by word, as `true` rules are.
  const prefixes: string[] = [];
  for (const grant of context.grants) {
    if (grant.tool === call.tool && grant.matcher.kind === 'command') {
      prefixes.push(grant.matcher.prefix);
    }
  }
  const ruleContext = new CommandRuleContext(context, prefixes);
  const verdict = evaluateCommand(analysis, ruleContext);
  // The panel lists the sub-commands as the rules and grants judge them, also where the tool is not gated.
  const commandDetails = verdict.details;
  if (!gated) {
    const structural = structurally(analysis, ruleContext);
    return structural.verdict === 'allow'
      ? judged('allow', { kind: 'not-gated', label: call.tool }, 'setting', warnings, true, {
          allowedBy: { kind: 'rule', setting: 'toolgate.gatedTools', keys: [call.tool] },
          commandDetails,
        })
      : commandAsks(structural, commandDetails, warnings, false);
  }
  if (verdict.verdict === 'allow') {
    // When no grant decided a sub-command, the rules alone give this same verdict; otherwise they are asked alone.
    const byRulesAlone = !verdict.usedExtraPrefix || evaluateCommand(analysis, ruleContext.withPrefixes([])).verdict === 'allow';
    // The grant a sub-command was allowed by, as the verdict names it (not read back from its wording).
    const grant = byRulesAlone ? undefined : context.grants.find(({ tool, matcher }) => tool === call.tool && matcher.kind === 'command'
      && commandDetails.some((detail) => detail.rule === matcher.prefix));
    const grantPrefix = grant?.matcher.kind === 'command' ? grant.matcher.prefix : undefined;
    const ruleKeys: string[] = [];
    for (const detail of commandDetails) {
      if (detail.rule !== undefined && detail.rule !== grantPrefix && !ruleKeys.includes(detail.rule)) {
        ruleKeys.push(detail.rule);
      }
    }
    return grant
      ? judged('allow', { kind: 'grant', grant, alongside: { ruleKeys } }, 'grant', warnings, true, { allowedBy: { kind: 'grant', grant }, grant, commandDetails })
      : judged('allow', { kind: 'rule', setting: 'toolgate.autoApprove.terminal', keys: ruleKeys, command: verdict }, byRulesAlone ? 'rule' : 'grant', warnings, true, {
          allowedBy: { kind: 'rule', setting: 'toolgate.autoApprove.terminal', keys: ruleKeys },
          commandDetails,
        });
  }
  const structural = structurally(analysis, ruleContext);
  // A grant can only ever help when the line would be allowed with every sub-command granted.
  const grantable = structural.verdict === 'allow';
  const exact = context.grants.find((grant) => grant.tool === call.tool && grant.matcher.kind === 'exact' && grant.matcher.argsHash === call.argsHash);
  if (exact && grantable) {
    return judged('allow', { kind: 'grant', grant: exact }, 'grant', warnings, true, { allowedBy: { kind: 'grant', grant: exact }, grant: exact, commandDetails });
  }
  return commandAsks(verdict, commandDetails, warnings, grantable, verdict.kind === 'false-rule' ? 'rule' : 'policy');
}

/**
 * The line as if every sub-command were allowed: what still asks then is a false rule, a redirect or unseen code. Only
 * evaluated where it is needed: a line the rules and grants allow is grantable anyway.
 */
function structurally(analysis: CommandAnalysis, ruleContext: CommandRuleContext): CommandVerdict {
  return evaluateCommand(analysis, ruleContext.withPrefixes([...ruleContext.extraAllowPrefixes, ...analysis.commands.map((command) => command.words.join(' '))]));
}

/** A command line the rules make ask, with its sub-commands and the one the card's sentence is about. */
function commandAsks(verdict: CommandVerdict, commandDetails: SubVerdict[], warnings: string[], grantable: boolean, decidedBy: DecidedBy = 'policy'): Judgement {
  return ask({ kind: verdict.kind === 'false-rule' ? 'false-rule' : 'command', command: verdict }, decidedBy, warnings, grantable, {
    commandDetails,
    ...(verdict.subject ? { commandSubject: verdict.subject } : {}),
  });
}

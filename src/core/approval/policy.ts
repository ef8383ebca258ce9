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
 */
import type { RuleSetting } from '../settings';
import { builtinTools, isBuiltinTool } from '../toolDefinitions';
import { globMatches } from './glob';
import type { CommandAnalysis } from '../shell/analysis';
import { evaluateCommand, type CommandVerdict, type RuleContext, type SubVerdict } from '../shell/rules';
import { describeGrant, describeMatcher, grantMatches, type Grant, type GrantSubject } from './grants';
import type { ResolvedPath } from './paths';
import { isInside } from './paths';

export type Verdict = 'allow' | 'ask' | 'deny';

/** Who or what produced a verdict, for the audit log and the panel. */
export type DecidedBy = 'policy' | 'rule' | 'grant' | 'setting';

/** Why a call was judged as it was; nothing reads a judgement back from its wording. */
export type JudgementKind =
  | 'unknown-tool' | 'interact' | 'own-storage' | 'untrusted' | 'outside' | 'protected' | 'false-rule' | 'command'
  | 'not-gated' | 'grant' | 'rule' | 'gated' | 'unconfined' | 'changed-meanwhile';


/** What let a call run without asking: `true` keys of a setting, or a grant the person made. */
export type AllowedBy = { kind: 'rule'; setting: RuleSetting; keys: string[] } | { kind: 'grant'; grant: Grant };

export interface Judgement {
  verdict: Verdict;
  kind: JudgementKind;
  /** For the audit log and the API: "asks: edits to .vscode/** always ask". */
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
  unconfined?: { failure: string };
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
}

const ask = (kind: JudgementKind, reason: string, plain: string, decidedBy: DecidedBy, warnings: string[], grantable: boolean): Judgement => ({
  verdict: 'ask',
  kind,
  reason,
  plain,
  decidedBy,
  warnings,
  grantable,
});

const code = (text: string): string => `\`${text.length > 80 ? `${text.slice(0, 80)}…` : text}\``;
const sentence = (text: string): string => `${text.charAt(0).toUpperCase()}${text.slice(1)}${/[.!?]$/.test(text) ? '' : '.'}`;
const scopeWords = (grant: Grant): string => (grant.scope === 'workspace' ? 'your workspace grant' : 'your session grant');
/** "Allowed by your session grant for run_in_terminal: commands starting with `npm test`." */
const grantPlain = (grant: Grant): string => `Allowed by ${scopeWords(grant)} for ${describeMatcher(grant.tool, grant.matcher)}.`;
/** What a gated built-in tool does, as the start of a sentence. */
const toolVerbs: Partial<Record<string, string>> = {
  write_file: 'Writes a file; writes always ask',
  edit_file: 'Edits a file; edits always ask',
  read_file: 'Reads a file; reads ask here',
  list_files: 'Lists a folder; listing asks here',
  search_text: 'Searches files; searching asks here',
};

export function judge(call: GateCall, context: PolicyContext): Judgement {
  if (call.tool !== 'run_in_terminal') {
    return judgeCall(call, context);
  }
  // A command: what the rules say, then the sandbox's floor (fail closed): without it nothing runs unasked.
  const judgement = judgeCall(call, context);
  if (call.unconfined !== undefined) {
    return {
      ...judgement,
      ...ask('unconfined', `asks: run again without the sandbox, after it failed in it (${call.unconfined.failure})`,
        `Runs WITHOUT the sandbox, with all your access to files and the network: it failed in the sandbox because ${call.unconfined.failure}.`,
        'policy', judgement.warnings, false),
      runsUnconfined: true,
    };
  }
  if (context.sandbox.available) {
    return judgement;
  }
  const warnings = [...judgement.warnings, `No sandbox here (${context.sandbox.reason}): if allowed, this command runs unconfined, with all your access.`];
  if (judgement.verdict !== 'allow') {
    return { ...judgement, warnings, grantable: false, ...(judgement.verdict === 'ask' ? { runsUnconfined: true } : {}) };
  }
  const rest: Judgement = { ...judgement };
  delete rest.allowedBy;
  delete rest.grant;
  return {
    ...rest,
    ...ask('unconfined', `asks: no sandbox here (${context.sandbox.reason}), so no rule or grant allows a command`,
      `${judgement.plain} But there is no sandbox here, so it would run unconfined; that always asks.`, 'policy', warnings, false),
    runsUnconfined: true,
  };
}

function judgeCall(call: GateCall, context: PolicyContext): Judgement {
  const warnings: string[] = [];
  const builtin = isBuiltinTool(call.tool) ? builtinTools[call.tool] : undefined;
  if (!builtin && !call.external) {
    return ask('unknown-tool', `asks: '${call.tool}' is not a known tool`, `${code(call.tool)} is not a tool Toolgate knows, so it asks.`, 'policy', warnings, false);
  }
  const risk = builtin?.risk ?? 'execute';
  const label = builtin ? call.tool : (call.external?.label ?? call.tool);
  const target = call.target;
  const writes = risk === 'write';

  if (risk === 'interact') {
    return { verdict: 'allow', kind: 'interact', reason: `allowed: ${label} only asks the person`, plain: 'Only asks you a question.', decidedBy: 'policy', warnings, grantable: false };
  }

  if (writes && target && context.forbiddenRoots.some((root) => isInside(root, target.real))) {
    return {
      verdict: 'deny',
      kind: 'own-storage',
      reason: `denied: ${target.input} is inside Toolgate's own storage, which the agent may not change`,
      plain: `Denied: ${code(target.input)} is inside Toolgate's own storage, which the agent may not change.`,
      decidedBy: 'policy',
      warnings,
      grantable: false,
    };
  }

  if (target && target.root === undefined) {
    warnings.push(`${target.input} resolves to ${target.real}, outside every workspace folder`);
  }

  if (!context.trusted) {
    return ask('untrusted', 'asks: this workspace is not trusted, so nothing is allowed without asking',
      'This workspace is not trusted, so every call asks.', 'policy', warnings, false);
  }

  if (target && target.root === undefined) {
    const what = writes ? 'writes' : risk === 'execute' ? 'commands run' : 'reads';
    const does = writes ? 'Writes' : risk === 'execute' ? 'Runs in' : 'Reads';
    return ask('outside', `asks: ${what} outside the workspace always ask (${target.real})`,
      `${does} ${code(target.real)}, outside the workspace; that always asks.`, 'policy', warnings, false);
  }

  const relative = target?.relative;
  if (writes && relative !== undefined) {
    const hit = context.protectedPaths.find((glob) => globMatches(glob, relative));
    if (hit !== undefined) {
      return ask('protected', `asks: ${relative} is a protected path (\`${hit}\`), which always asks`,
        `Writes ${code(relative)}, a protected path (${code(hit)} in toolgate.protectedPaths); that always asks.`, 'setting', warnings, false);
    }
    if (call.changedMeanwhile !== undefined) {
      return ask('changed-meanwhile', `asks: a command changed ${relative}, and ${call.changedMeanwhile}`,
        `A command changed ${code(relative)}, and ${call.changedMeanwhile}; that always asks.`, 'policy', warnings, false);
    }
    const denyRule = Object.entries(context.editRules).find(
      ([glob, allowed]) => !allowed && globMatches(glob, relative),
    );
    if (denyRule) {
      return ask('false-rule', `asks: edits matching \`${denyRule[0]}\` always ask (rule set to false)`,
        `Writes ${code(relative)}, which ${code(denyRule[0])} in toolgate.autoApprove.edits sets to always ask.`, 'rule', warnings, true);
    }
  }

  const gated = builtin ? context.gatedTools[call.tool] !== false : call.external?.gated !== false;
  if (call.tool === 'run_in_terminal') {
    return judgeCommand(call, context, gated, warnings);
  }

  if (!gated) {
    return {
      verdict: 'allow',
      kind: 'not-gated',
      reason: `allowed: ${label} is not gated`,
      plain: `${code(label)} is not gated, so it runs without asking.`,
      ...(builtin ? { allowedBy: { kind: 'rule' as const, setting: 'toolgate.gatedTools' as const, keys: [call.tool] } } : {}),
      decidedBy: 'setting',
      warnings,
      grantable: true,
    };
  }

  const subject: GrantSubject = {
    tool: call.tool,
    argsHash: call.argsHash,
    ...(relative !== undefined && writes ? { relativePath: relative } : {}),
    ...(call.external?.definitionHash !== undefined ? { definitionHash: call.external.definitionHash } : {}),
    ...(call.external?.server !== undefined ? { mcpServer: call.external.server } : {}),
  };
  const grant = context.grants.find((candidate) => grantMatches(candidate, subject));
  if (grant) {
    return {
      verdict: 'allow',
      kind: 'grant',
      reason: `allowed: ${describeGrant(grant)}`,
      plain: grantPlain(grant),
      allowedBy: { kind: 'grant', grant },
      decidedBy: 'grant',
      warnings,
      grant,
      grantable: true,
    };
  }

  if (writes && relative !== undefined) {
    const allowRule = Object.entries(context.editRules).find(([glob, allowed]) => allowed && globMatches(glob, relative));
    if (allowRule) {
      return {
        verdict: 'allow',
        kind: 'rule',
        reason: `allowed: edits matching \`${allowRule[0]}\` are auto-approved`,
        plain: `Writes ${code(relative)}, allowed by ${code(allowRule[0])} in toolgate.autoApprove.edits.`,
        allowedBy: { kind: 'rule', setting: 'toolgate.autoApprove.edits', keys: [allowRule[0]] },
        decidedBy: 'rule',
        warnings,
        grantable: true,
      };
    }
  }
  const verb = builtin ? toolVerbs[call.tool] : undefined;
  const plain = verb !== undefined
    ? `${verb} (toolgate.gatedTools).`
    : `Calls ${code(label)}, which asks before it runs${call.external?.server !== undefined ? ` (the server's requireApproval)` : ''}.`;
  return ask('gated', `asks: ${label} is gated`, plain, 'setting', warnings, true);
}

/**
 * A terminal call: allowed without asking only if every sub-command is allowed by a `true` rule or a command grant,
 * none matches a `false` rule, no redirect writes outside the workspace or into a protected path, and nothing in the
 * line runs code the rules did not see. An exact grant re-allows the identical line only under the same conditions.
 */
function judgeCommand(call: GateCall, context: PolicyContext, gated: boolean, warnings: string[]): Judgement {
  const analysis = call.commandAnalysis;
  if (!analysis) {
    return ask('command', 'asks: the command could not be analysed', 'The command could not be analysed, so it asks.', 'policy', warnings, false);
  }
  const terminalGrants = context.grants.filter((grant) => grant.tool === call.tool);
  const prefixes = terminalGrants.flatMap((grant) => (grant.matcher.kind === 'command' ? [grant.matcher.prefix] : []));
  // A file a command writes (a redirect, `--output`) is judged exactly as write_file on that path would be.
  const judgeWrite = (absolute: string): { allowed: boolean; reason: string } => {
    const target = context.locate(absolute);
    const write = judge({ tool: 'write_file', args: { path: target.real }, argsHash: '', target }, context);
    return { allowed: write.verdict === 'allow', reason: `write_file there ${write.reason.replace(/^(asks|denied): /, (_all, how: string) => (how === 'asks' ? 'would ask: ' : 'is denied: '))}` };
  };
  const ruleContext: RuleContext = {
    rules: context.terminalRules,
    extraAllowPrefixes: prefixes,
    isInsideWorkspace: (absolute) => context.locate(absolute).root !== undefined,
    judgeWrite,
    isProtected: (absolute) => {
      const relative = context.locate(absolute).relative;
      return relative === undefined ? undefined : context.protectedPaths.find((glob) => globMatches(glob, relative));
    },
  };
  const verdict = evaluateCommand(analysis, ruleContext);
  const commandDetails = verdict.details;
  const everySubCommand = analysis.commands.map((command) => command.words.join(' '));
  // As if every sub-command were allowed: what still asks then is a false rule, a redirect or unseen code.
  const structural = evaluateCommand(analysis, { ...ruleContext, extraAllowPrefixes: [...prefixes, ...everySubCommand] });
  // A grant can only ever help when the line would be allowed with every sub-command granted.
  const grantable = structural.verdict === 'allow';
  if (!gated) {
    return structural.verdict === 'allow'
      ? {
          verdict: 'allow', kind: 'not-gated', reason: 'allowed: run_in_terminal is not gated', plain: '`run_in_terminal` is not gated, so it runs without asking.',
          allowedBy: { kind: 'rule', setting: 'toolgate.gatedTools', keys: [call.tool] }, decidedBy: 'setting', warnings, grantable: true, commandDetails,
        }
      : { ...ask(commandKind(structural), structural.reason, commandPlain(structural), 'policy', warnings, grantable), commandDetails, ...subjectOf(structural) };
  }
  if (verdict.verdict === 'allow') {
    const byRulesAlone = evaluateCommand(analysis, { ...ruleContext, extraAllowPrefixes: [] }).verdict === 'allow';
    // The grant a sub-command was allowed by, as the verdict names it (not read back from its wording).
    const used = new Set(commandDetails.flatMap((detail) => (detail.rule === undefined ? [] : [detail.rule])));
    const grant = byRulesAlone ? undefined : terminalGrants.find((candidate) => candidate.matcher.kind === 'command' && used.has(candidate.matcher.prefix));
    const grantPrefix = grant?.matcher.kind === 'command' ? grant.matcher.prefix : undefined;
    const ruleKeys = [...new Set(commandDetails.flatMap((detail) => (detail.rule === undefined || detail.rule === grantPrefix ? [] : [detail.rule])))];
    return {
      verdict: 'allow',
      kind: grant ? 'grant' : 'rule',
      reason: grant ? `allowed: ${describeGrant(grant)} (every sub-command is covered by a rule or grant)` : verdict.reason,
      plain: grant
        ? `${grantPlain(grant).slice(0, -1)}${ruleKeys.length > 0 ? `, and ${ruleKeys.map(code).join(', ')} in toolgate.autoApprove.terminal` : ''}.`
        : `Allowed by ${ruleKeys.map(code).join(', ')} in toolgate.autoApprove.terminal.`,
      allowedBy: grant ? { kind: 'grant', grant } : { kind: 'rule', setting: 'toolgate.autoApprove.terminal', keys: ruleKeys },
      decidedBy: byRulesAlone ? 'rule' : 'grant',
      warnings,
      grantable: true,
      commandDetails,
      ...(grant ? { grant } : {}),
    };
  }
  const exact = terminalGrants.find((grant) => grant.matcher.kind === 'exact' && grant.matcher.argsHash === call.argsHash);
  if (exact && structural.verdict === 'allow') {
    return {
      verdict: 'allow', kind: 'grant', reason: `allowed: ${describeGrant(exact)}`, plain: grantPlain(exact), allowedBy: { kind: 'grant', grant: exact },
      decidedBy: 'grant', warnings, grant: exact, grantable: true, commandDetails,
    };
  }
  return {
    ...ask(commandKind(verdict), verdict.reason, commandPlain(verdict), verdict.kind === 'false-rule' ? 'rule' : 'policy', warnings, grantable),
    commandDetails,
    ...subjectOf(verdict),
  };
}

const subjectOf = (verdict: CommandVerdict): { commandSubject?: SubVerdict } => (verdict.subject ? { commandSubject: verdict.subject } : {});
const commandKind = (verdict: CommandVerdict): JudgementKind => (verdict.kind === 'false-rule' ? 'false-rule' : 'command');

/** Why a command line asks, as one sentence: "Runs `npm`, which no rule allows yet." */
function commandPlain(verdict: CommandVerdict): string {
  const subject = verdict.subject;
  if (subject?.kind === 'no-rule') {
    return `Runs ${code(subject.name)}, which no rule allows yet.`;
  }
  if (subject?.kind === 'false-rule' && subject.falseRule !== undefined) {
    return `Runs ${code(subject.name)}, which ${code(subject.falseRule)} in toolgate.autoApprove.terminal sets to always ask.`;
  }
  return sentence(subject ? subject.reason : verdict.why);
}

/**
 * Why the policy judged a call as it did, as typed facts, and the sentences made from them: one renderer per
 * audience. `reasonSentence` is for the audit log, the model and the API's `evaluate()` (they read the same words);
 * `cardSentence` is the one plain sentence on the person's card. judge() decides with facts only; nothing reads a
 * decision back from its wording, and each sentence is written in one place.
 */
import type { CommandVerdict } from '../shell/rules';
import { describeGrant, describeMatcher, type Grant } from './grants';
import type { ManagedBecause } from './managedRules';

export type Verdict = 'allow' | 'ask' | 'deny';

/** The facts behind a judgement; `kind` is the judgement's kind. */
export type Because =
  | { kind: 'unknown-tool'; tool: string }
  | { kind: 'interact'; label: string }
  | { kind: 'own-storage'; path: string }
  | { kind: 'untrusted' }
  | { kind: 'outside'; risk: 'write' | 'execute' | 'read'; real: string }
  /**
   * `sameFileAs`: the path is not protected itself but is another name (a hard link) of a file that is, or has names
   * the search for them could not all reach (`unfound`: fail closed).
   */
  | { kind: 'protected'; path: string; glob: string; sameFileAs?: string; unfound?: number; managedFile?: string }
  | { kind: 'changed-meanwhile'; path: string; how: string }
  | { kind: 'false-rule'; setting: 'toolgate.autoApprove.edits'; path: string; key: string }
  /** A command line the shell rules make ask (the verdict holds the rules' own clause and the sub-command). */
  | { kind: 'false-rule' | 'command'; command: CommandVerdict }
  | { kind: 'command'; command?: undefined }
  | { kind: 'not-gated'; label: string }
  /** `alongside`: a command line covered partly by the grant and partly by these `true` terminal rules. */
  | { kind: 'grant'; grant: Grant; alongside?: { ruleKeys: readonly string[] } }
  | { kind: 'rule'; setting: 'toolgate.autoApprove.edits'; key: string; path: string }
  | { kind: 'rule'; setting: 'toolgate.autoApprove.terminal'; keys: readonly string[]; command: CommandVerdict }
  /** `builtin`: the built-in tool, whose verb the card names; `server`: the MCP server whose requireApproval asks. */
  | { kind: 'gated'; label: string; builtin?: string; server?: string }
  | { kind: 'unconfined'; failure: string; narrowFixes?: boolean }
  /** No sandbox here: what the policy would otherwise have said, and why there is none. */
  | { kind: 'unconfined'; noSandbox: string; otherwise: Because }
  /** The managed settings file decided (managedRules.ts). */
  | ManagedBecause;

export type JudgementKind = Because['kind'];

/** The audit log's word for each verdict, which starts its sentence. */
const verdictWords: Record<Verdict, string> = { allow: 'allowed', ask: 'asks', deny: 'denied' };

const code = (text: string): string => `\`${text.length > 80 ? `${text.slice(0, 80)}…` : text}\``;
const sentence = (text: string): string => `${text.charAt(0).toUpperCase()}${text.slice(1)}${/[.!?]$/.test(text) ? '' : '.'}`;

/** What a gated built-in tool does, as the start of a sentence. */
const toolVerbs: Partial<Record<string, string>> = {
  write_file: 'Writes a file; writes always ask',
  edit_file: 'Edits a file; edits always ask',
  read_file: 'Reads a file; reads ask here',
  list_files: 'Lists a folder; listing asks here',
  search_text: 'Searches files; searching asks here',
};

/** For the audit log, the model and the API: "asks: edits to .vscode/** always ask". */
export function reasonSentence(verdict: Verdict, because: Because): string {
  return `${verdictWords[verdict]}: ${reasonClause(because)}`;
}

/**
 * How a write a command makes would be judged, inside that command's reason: "write_file there would ask: …".
 * Said from the write's facts, never by rewording its sentence.
 */
export function writeClause(verdict: Verdict, because: Because): string {
  const how = verdict === 'deny' ? 'is denied' : verdict === 'ask' ? 'would ask' : 'is allowed';
  return `write_file there ${how}: ${reasonClause(because)}`;
}

/** The audit reason after its verdict word. */
function reasonClause(because: Because): string {
  switch (because.kind) {
    case 'unknown-tool':
      return `'${because.tool}' is not a known tool`;
    case 'interact':
      return `${because.label} only asks the person`;
    case 'own-storage':
      return `${because.path} is inside Toolgate's own storage, which the agent may not change`;
    case 'untrusted':
      return 'this workspace is not trusted, so nothing is allowed without asking';
    case 'outside': {
      const what = because.risk === 'write' ? 'writes' : because.risk === 'execute' ? 'commands run' : 'reads';
      return `${what} outside the workspace always ask (${because.real})`;
    }
    case 'protected':
      if (because.sameFileAs !== undefined) {
        return `${because.path} is the same file as ${because.sameFileAs}, which is a protected path (\`${because.glob}\`), which always asks`;
      }
      if (because.unfound !== undefined) {
        return `${because.path} has ${because.unfound} other names (hard links) that could not all be found; one may be protected, which always asks`;
      }
      return `${because.path} is a protected path (\`${because.glob}\`${because.managedFile !== undefined ? ` in the managed policy ${because.managedFile}` : ''}), which always asks`;
    case 'changed-meanwhile':
      return `a command changed ${because.path}, and ${because.how}`;
    case 'false-rule':
    case 'command':
      if ('setting' in because) {
        return `edits matching \`${because.key}\` always ask (rule set to false)`;
      }
      return because.command === undefined ? 'the command could not be analysed' : because.command.why;
    case 'not-gated':
      return `${because.label} is not gated`;
    case 'grant':
      return `${describeGrant(because.grant)}${because.alongside !== undefined ? ' (every sub-command is covered by a rule or grant)' : ''}`;
    case 'rule':
      return because.setting === 'toolgate.autoApprove.edits' ? `edits matching \`${because.key}\` are auto-approved` : because.command.why;
    case 'gated':
      return `${because.label} is gated`;
    case 'unconfined':
      return 'failure' in because
        ? `run again without the sandbox, after it failed in it (${because.failure})`
        : `no sandbox here (${because.noSandbox}), so no rule or grant allows a command`;
    case 'managed':
      return `managed policy: ${managedClause(because)} (${because.file})`;
  }
}

/** What a managed rule is about, and what it does to it: "`curl` is denied", "writes to secrets/a.txt always ask". */
function managedClause(because: ManagedBecause): string {
  if ('sandboxRequired' in because) {
    return `commands never run without the sandbox, and ${because.sandboxRequired}`;
  }
  if ('unchecked' in because) {
    return `${code(because.unchecked)} depends on an expansion or cannot be parsed, so it cannot be checked against the managed deny rules, and is denied`;
  }
  const does = because.list === 'deny' ? 'is denied' : 'always asks';
  const what = because.entry === 'paths' ? `${code(because.subject)} (${code(because.key)})` : `${code(because.subject)}${because.key !== because.subject ? ` (${code(because.key)})` : ''}`;
  return `${what} ${does}`;
}

/** For the person's card, one plain sentence: "Writes a file; writes always ask (toolgate.gatedTools)." */
export function cardSentence(because: Because): string {
  switch (because.kind) {
    case 'unknown-tool':
      return `${code(because.tool)} is not a tool Toolgate knows, so it asks.`;
    case 'interact':
      return 'Only asks you a question.';
    case 'own-storage':
      return `Denied: ${code(because.path)} is inside Toolgate's own storage, which the agent may not change.`;
    case 'untrusted':
      return 'This workspace is not trusted, so every call asks.';
    case 'outside': {
      const does = because.risk === 'write' ? 'Writes' : because.risk === 'execute' ? 'Runs in' : 'Reads';
      return `${does} ${code(because.real)}, outside the workspace; that always asks.`;
    }
    case 'protected':
      if (because.sameFileAs !== undefined) {
        return `Writes ${code(because.path)}: ${because.path} is the same file as ${because.sameFileAs}, which is protected (${code(because.glob)} in toolgate.protectedPaths); that always asks.`;
      }
      if (because.unfound !== undefined) {
        return `Writes ${code(because.path)}, a file with ${because.unfound} other names (hard links) not all found, so it may be a protected file; that always asks.`;
      }
      return `Writes ${code(because.path)}, a protected path (${code(because.glob)} in ${because.managedFile !== undefined ? `the managed policy ${because.managedFile}` : 'toolgate.protectedPaths'}); that always asks.`;
    case 'changed-meanwhile':
      return `A command changed ${code(because.path)}, and ${because.how}; that always asks.`;
    case 'false-rule':
    case 'command':
      if ('setting' in because) {
        return `Writes ${code(because.path)}, which ${code(because.key)} in toolgate.autoApprove.edits sets to always ask.`;
      }
      return because.command === undefined ? 'The command could not be analysed, so it asks.' : commandCard(because.command);
    case 'not-gated':
      return `${code(because.label)} is not gated, so it runs without asking.`;
    case 'grant': {
      const scope = because.grant.scope === 'workspace' ? 'your workspace grant' : 'your session grant';
      const keys = because.alongside?.ruleKeys ?? [];
      const rules = keys.length > 0 ? `, and ${keys.map(code).join(', ')} in toolgate.autoApprove.terminal` : '';
      return `Allowed by ${scope} for ${describeMatcher(because.grant.tool, because.grant.matcher)}${rules}.`;
    }
    case 'rule':
      return because.setting === 'toolgate.autoApprove.edits'
        ? `Writes ${code(because.path)}, allowed by ${code(because.key)} in toolgate.autoApprove.edits.`
        : `Allowed by ${because.keys.map(code).join(', ')} in toolgate.autoApprove.terminal.`;
    case 'gated': {
      const verb = because.builtin !== undefined ? toolVerbs[because.builtin] : undefined;
      return verb !== undefined
        ? `${verb} (toolgate.gatedTools).`
        : `Calls ${code(because.label)}, which asks before it runs${because.server !== undefined ? ` (the server's requireApproval)` : ''}.`;
    }
    case 'unconfined':
      if ('failure' in because && because.narrowFixes === true) {
        // The narrow fixes come first on the card: the sentence must not promise only the widest one.
        return `It failed in the sandbox because ${because.failure}. Allow only what it needs to run it again in the sandbox, or run it once WITHOUT the sandbox, with all your access to files and the network.`;
      }
      return 'failure' in because
        ? `Runs WITHOUT the sandbox, with all your access to files and the network: it failed in the sandbox because ${because.failure}.`
        : `${cardSentence(because.otherwise)} But there is no sandbox here, so it would run unconfined; that always asks.`;
    case 'managed':
      return `Managed policy: ${managedClause(because)}; your organisation set this in ${because.file}.`;
  }
}

/** Why a command line asks, as one sentence: "Runs `npm`, which no rule allows yet." */
function commandCard(verdict: CommandVerdict): string {
  const subject = verdict.subject;
  if (subject?.kind === 'no-rule') {
    return `Runs ${code(subject.name)}, which no rule allows yet.`;
  }
  if (subject?.kind === 'false-rule' && subject.falseRule !== undefined) {
    return `Runs ${code(subject.name)}, which ${code(subject.falseRule)} in toolgate.autoApprove.terminal sets to always ask.`;
  }
  return sentence(subject ? subject.reason : verdict.why);
}

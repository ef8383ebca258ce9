/**
 * The managed policy inside the judge (../managed/managedSettings.ts reads the file): its deny and always-ask rules
 * checked before anything of the person's, the sandbox it requires, and the person's rules, grants and settings
 * narrowed to what it lets exist. Nothing here can widen what the person's own policy allows.
 */
import { escapedGlob } from '../managed/managedCeilings';
import type { ManagedPolicy, ManagedRuleLists } from '../managed/managedSettings';
import type { CommandAnalysis } from '../shell/analysis';
import { firstMatchingKey, splitRules } from '../shell/rules';
import { builtinTools, isBuiltinTool } from '../toolDefinitions';
import { firstMatchingGlob } from './glob';
import type { GrantLimits } from './choices';
import type { Grant } from './grants';
import type { ResolvedPath } from './paths';

/** Which list and entry of the managed file decided, and about what. */
export type ManagedBecause =
  | { kind: 'managed'; file: string; list: 'deny' | 'ask'; entry: 'terminal' | 'paths' | 'mcpTools'; key: string; subject: string }
  /** The managed file requires the sandbox, and this command would run without it. */
  | { kind: 'managed'; file: string; sandboxRequired: string }
  /** The managed file has terminal deny rules, and this line cannot be checked against them (an expansion, a parse error). */
  | { kind: 'managed'; file: string; unchecked: string };

/** What of a call the managed rules read. */
export interface ManagedSubject {
  tool: string;
  builtin: boolean;
  target?: ResolvedPath | undefined;
  commandAnalysis?: CommandAnalysis | undefined;
  /** Where a path a command hands to the kernel really is (the policy's locate). */
  locate(absolute: string): ResolvedPath;
}

/** A list of path globs split once into the workspace-relative ones and those on the real path (starting with `/`). */
const splitPaths = new WeakMap<readonly string[], { relative: readonly string[]; absolute: readonly string[] }>();
function pathGlobs(keys: readonly string[]): { relative: readonly string[]; absolute: readonly string[] } {
  let split = splitPaths.get(keys);
  if (split === undefined) {
    split = { relative: keys.filter((key) => !key.startsWith('/')), absolute: keys.filter((key) => key.startsWith('/')) };
    splitPaths.set(keys, split);
  }
  return split;
}

/** Path globs are workspace-relative (as toolgate.protectedPaths); one starting with `/` is matched on the real path. */
function pathKey(keys: readonly string[], target: ResolvedPath): string | undefined {
  const { relative, absolute } = pathGlobs(keys);
  const names = target.relative !== undefined ? [target.relative, ...(target.sameFile?.others ?? [])] : [];
  for (const name of names) {
    const hit = firstMatchingGlob(relative, name);
    if (hit !== undefined) {
      return hit;
    }
  }
  return firstMatchingGlob(absolute, target.real);
}

/** The managed file's own path as a deny list of one, made once per policy read. */
const ownLists = new WeakMap<ManagedPolicy, ManagedRuleLists>();
function ownPath(policy: ManagedPolicy): ManagedRuleLists {
  let own = ownLists.get(policy);
  if (own === undefined) {
    own = { terminal: [], paths: [`/${escapedGlob(policy.file.replace(/^\/+/, ''))}`], mcpTools: [] };
    ownLists.set(policy, own);
  }
  return own;
}

/** Whether a call may change files: a write tool or a command (reads never change the managed file). */
const changes = (subject: ManagedSubject): boolean => subject.tool === 'run_in_terminal' || (isBuiltinTool(subject.tool) && builtinTools[subject.tool].risk === 'write');

/** The first entry of one list the call matches. */
function matchList(lists: ManagedRuleLists, subject: ManagedSubject): { entry: 'terminal' | 'paths' | 'mcpTools'; key: string; subject: string } | undefined {
  if (!subject.builtin) {
    const key = firstMatchingGlob(lists.mcpTools, subject.tool);
    return key === undefined ? undefined : { entry: 'mcpTools', key, subject: subject.tool };
  }
  if (subject.target !== undefined && subject.tool !== 'run_in_terminal') {
    const key = pathKey(lists.paths, subject.target);
    if (key !== undefined) {
      return { entry: 'paths', key, subject: subject.target.relative ?? subject.target.real };
    }
  }
  const analysis = subject.commandAnalysis;
  if (analysis === undefined) {
    return undefined;
  }
  for (const command of analysis.commands) {
    const hit = firstMatchingKey(command, lists.terminal);
    if (hit !== undefined) {
      return { entry: 'terminal', key: hit.key, subject: hit.name };
    }
  }
  // The files a line writes or changes are judged as the file tools' paths are.
  const touched = [
    ...analysis.redirects.filter((redirect) => redirect.writes && redirect.target !== undefined).map((redirect) => redirect.target ?? ''),
    ...analysis.commands.flatMap((command) => command.paths.filter((use) => use.role === 'touches').map((use) => use.target)),
  ];
  for (const absolute of touched) {
    const target = subject.locate(absolute);
    const key = pathKey(lists.paths, target);
    if (key !== undefined) {
      return { entry: 'paths', key, subject: target.relative ?? target.real };
    }
  }
  return undefined;
}

/**
 * The managed rules' verdict on a call, before anything of the person's: deny, or ask (and no grant may cover it);
 * undefined when they say nothing of it. A line the terminal deny rules cannot see whole is denied: what is denied
 * must not run because it was spelled through an expansion.
 */
export function managedVerdict(policy: ManagedPolicy, subject: ManagedSubject): { verdict: 'deny' | 'ask'; because: ManagedBecause } | undefined {
  // The managed file itself, should a workspace folder hold it (a server's /etc opened as the workspace): never changed.
  const itself = changes(subject) ? matchList(ownPath(policy), subject) : undefined;
  if (itself !== undefined) {
    return { verdict: 'deny', because: { kind: 'managed', file: policy.file, list: 'deny', entry: 'paths', key: 'the managed settings file itself', subject: itself.subject } };
  }
  const denied = matchList(policy.deny, subject);
  if (denied !== undefined) {
    return { verdict: 'deny', because: { kind: 'managed', file: policy.file, list: 'deny', ...denied } };
  }
  const analysis = subject.commandAnalysis;
  if (analysis !== undefined && policy.deny.terminal.length > 0) {
    const unseen = analysis.parseError !== undefined ? 'the line could not be parsed' : analysis.commands.find((command) => command.dynamic)?.text;
    if (unseen !== undefined) {
      return { verdict: 'deny', because: { kind: 'managed', file: policy.file, unchecked: unseen } };
    }
  }
  const asked = matchList(policy.ask, subject);
  return asked === undefined ? undefined : { verdict: 'ask', because: { kind: 'managed', file: policy.file, list: 'ask', ...asked } };
}

/** The parts of the policy's context the managed file narrows. */
export interface NarrowedInputs {
  gatedTools: Readonly<Record<string, boolean>>;
  editRules: Readonly<Record<string, boolean>>;
  terminalRules: Readonly<Record<string, boolean>>;
  protectedPaths: readonly string[];
}

/** A rules setting with only its `false` keys (a `true` key auto-approves, which the managed file turned off). */
const falseKeysOnly = new WeakMap<object, Readonly<Record<string, boolean>>>();
function onlyFalse(rules: Readonly<Record<string, boolean>>): Readonly<Record<string, boolean>> {
  let kept = falseKeysOnly.get(rules);
  if (kept === undefined) {
    kept = Object.freeze(Object.fromEntries(splitRules(rules).deny.map((key) => [key, false])));
    falseKeysOnly.set(rules, kept);
  }
  return kept;
}

const withManagedPaths = new WeakMap<readonly string[], WeakMap<readonly string[], readonly string[]>>();
function protectedWith(own: readonly string[], managed: readonly string[]): readonly string[] {
  if (managed.length === 0) {
    return own;
  }
  let byManaged = withManagedPaths.get(own);
  if (byManaged === undefined) {
    byManaged = new WeakMap();
    withManagedPaths.set(own, byManaged);
  }
  let list = byManaged.get(managed);
  if (list === undefined) {
    list = Object.freeze([...new Set([...own, ...managed])]);
    byManaged.set(managed, list);
  }
  return list;
}

/**
 * The person's settings as the managed file lets them apply: its protected paths added; without `autoApproveRules`,
 * only the `false` keys of the rules, and every tool gated that is gated by default (a setting cannot un-gate writes
 * or commands). Cached by identity: judge() reads these for every call.
 */
export function narrowedInputs<T extends NarrowedInputs>(inputs: T, policy: ManagedPolicy | undefined, gatedByDefault: Readonly<Record<string, boolean>>): T {
  if (policy === undefined) {
    return inputs;
  }
  const protectedPaths = protectedWith(inputs.protectedPaths, policy.protectedPaths);
  if (policy.grants.autoApproveRules) {
    return protectedPaths === inputs.protectedPaths ? inputs : { ...inputs, protectedPaths };
  }
  return {
    ...inputs,
    protectedPaths,
    editRules: onlyFalse(inputs.editRules),
    terminalRules: onlyFalse(inputs.terminalRules),
    gatedTools: gatedWithDefaults(inputs.gatedTools, gatedByDefault),
  };
}

const gatedCache = new WeakMap<object, Readonly<Record<string, boolean>>>();
function gatedWithDefaults(own: Readonly<Record<string, boolean>>, defaults: Readonly<Record<string, boolean>>): Readonly<Record<string, boolean>> {
  let gated = gatedCache.get(own);
  if (gated === undefined) {
    gated = Object.freeze({ ...own, ...Object.fromEntries(Object.entries(defaults).filter(([, on]) => on)) });
    gatedCache.set(own, gated);
  }
  return gated;
}

/**
 * The grants the managed file lets be in force now: none of the workspace's where it forbids them, none older than its
 * longest time box.
 */
export function grantsInForceUnder(grants: Grant[], policy: ManagedPolicy | undefined, now: Date): Grant[] {
  if (policy === undefined || (policy.grants.workspace && policy.grants.maxMinutes === undefined)) {
    return grants;
  }
  const { workspace, maxMinutes } = policy.grants;
  return grants.filter((grant) => {
    if (!workspace && grant.scope === 'workspace') {
      return false;
    }
    if (maxMinutes === undefined) {
      return true;
    }
    const made = Date.parse(grant.createdAt);
    return Number.isFinite(made) && now.getTime() < made + maxMinutes * 60_000;
  });
}

/** Which grants a person may make under the managed file (undefined: every kind). */
export function grantLimitsUnder(policy: ManagedPolicy | undefined): GrantLimits | undefined {
  if (policy === undefined) {
    return undefined;
  }
  return { workspace: policy.grants.workspace, ...(policy.grants.maxMinutes !== undefined ? { maxMinutes: policy.grants.maxMinutes } : {}), file: policy.file };
}

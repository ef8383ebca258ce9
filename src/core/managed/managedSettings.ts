/**
 * The managed settings file: a team's policy that the person cannot loosen (`/etc/toolgate/managed-settings.json` on
 * Linux, `/Library/Application Support/Toolgate/managed-settings.json` on macOS, `%ProgramData%\Toolgate\...` on
 * Windows). Its shape is part of the public contract. Every entry only narrows: deny and always-ask rules on top of the
 * person's, more protected paths, the sandbox required, ceilings for the sandbox's domains and writable folders, which
 * grants exist, which MCP servers and model endpoints may be used, and an audit export the person cannot turn off.
 *
 * Parsed part by part: an entry that does not fit is named in a warning and replaced by the narrowest reading of it (a
 * bad `required` is true, a bad ceiling allows nothing, a rule that cannot be read is dropped and said), so a broken
 * file never leaves the person with more than a valid one would.
 */
import * as z from '../../zod';
import { parseExportConfig } from '../audit/export/otlpConfig';
import { parseJsonc } from '../files/jsonc';
import { parseDomainEntry } from '../sandbox/domains';
import { compileTerminalRule } from '../shell/rules';

/** Rules for the three kinds of call: terminal keys as in `toolgate.autoApprove.terminal`, path and tool globs. */
export interface ManagedRuleLists {
  terminal: readonly string[];
  paths: readonly string[];
  mcpTools: readonly string[];
}

/** What a managed file says, read: absent keys narrow nothing. */
export interface ManagedPolicy {
  /** The file it came from, for every message that names it. */
  file: string;
  deny: ManagedRuleLists;
  ask: ManagedRuleLists;
  protectedPaths: readonly string[];
  sandbox: {
    required: boolean;
    /** A ceiling: the person's entries are cut to those it covers; undefined: no ceiling. */
    allowedDomains?: readonly string[];
    writablePaths?: readonly string[];
  };
  grants: {
    /** Whether "Always allow in this workspace" exists; false also sets aside the workspace grants already made. */
    workspace: boolean;
    /** Whether settings may let calls run unasked (`true` rules, tools set not gated); false keeps only their `false` rules. */
    autoApproveRules: boolean;
    /** The longest any grant is in force after it was made. */
    maxMinutes?: number;
  };
  mcp: { allowedServers?: readonly string[] };
  model: { allowedBaseUrls?: readonly string[] };
  /** `audit.otlp` as written: the export reads it with its own schema. */
  audit: { otlp?: unknown };
}

export interface ParsedManagedSettings {
  policy: ManagedPolicy;
  /** One sentence per entry that did not fit, naming it and what was used instead. */
  problems: string[];
}

const emptyLists: ManagedRuleLists = Object.freeze({ terminal: [], paths: [], mcpTools: [] });

/** A file with nothing in it: what an absent key means. */
export function emptyManagedPolicy(file: string): ManagedPolicy {
  return { file, deny: emptyLists, ask: emptyLists, protectedPaths: [], sandbox: { required: false }, grants: { workspace: true, autoApproveRules: true }, mcp: {}, model: {}, audit: {} };
}

const topKeys = ['deny', 'ask', 'protectedPaths', 'sandbox', 'grants', 'mcp', 'model', 'audit'] as const;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** One entry's check: undefined when it fits, else why not. */
type EntryCheck = (entry: string) => string | undefined;

const checks: Record<'terminal' | 'glob' | 'server' | 'domain' | 'folder' | 'url', EntryCheck> = {
  terminal: (entry) => (compileTerminalRule(entry) === null ? 'is not a valid /regex/' : entry.trim() === '' ? 'is empty' : undefined),
  glob: (entry) => (entry.trim() === '' ? 'is empty' : undefined),
  server: (entry) => (entry.trim() === '' ? 'is empty' : undefined),
  domain: (entry) => {
    const parsed = parseDomainEntry(entry);
    return 'problem' in parsed ? parsed.problem : undefined;
  },
  folder: (entry) => (entry.startsWith('/') || /^[A-Za-z]:[\\/]/.test(entry) || entry.startsWith('~/') ? undefined : 'is not an absolute path (or one under ~/)'),
  url: (entry) => (z.url({ protocol: /^https?$/ }).safeParse(entry).success ? undefined : 'is not an http(s) URL'),
};

/** Reads a managed file's text; never throws: what cannot be read is a problem, read as narrowly as it can be. */
export function parseManagedSettings(text: string, file: string): ParsedManagedSettings {
  const problems: string[] = [];
  const policy = emptyManagedPolicy(file);
  let raw: unknown;
  try {
    raw = parseJsonc(text);
  } catch (error) {
    problems.push(`${file} is not valid JSON (${error instanceof Error ? error.message : String(error)}): nothing in it applies, and commands never run unconfined, no grant outlives the window, nothing is auto-approved by a setting, and no MCP server starts until it is fixed`);
    return { policy: unreadablePolicy(file), problems };
  }
  if (!isRecord(raw)) {
    problems.push(`${file} holds ${Array.isArray(raw) ? 'a list' : typeof raw}, not an object: it is read as the narrowest policy until it is fixed`);
    return { policy: unreadablePolicy(file), problems };
  }
  for (const key of Object.keys(raw)) {
    if (!(topKeys as readonly string[]).includes(key)) {
      problems.push(`"${key}" is not a key of the managed settings (${topKeys.join(', ')}): ignored`);
    }
  }
  const say = (where: string, what: string): void => {
    problems.push(`${where} ${what}`);
  };
  /** A list of strings, each checked; what does not fit is dropped and said. A value that is no list at all: `fallback`. */
  const list = (where: string, value: unknown, check: EntryCheck, fallback: readonly string[]): readonly string[] => {
    if (!Array.isArray(value)) {
      say(where, `is not a list of strings: ${fallback.length === 0 ? 'read as an empty list' : 'ignored'}`);
      return fallback;
    }
    const kept: string[] = [];
    value.forEach((entry: unknown, index) => {
      const why = typeof entry === 'string' ? check(entry) : 'is not a string';
      if (why === undefined && typeof entry === 'string') {
        kept.push(entry);
      } else {
        say(`${where}[${index}] ${JSON.stringify(entry)}`, `${why ?? 'is not valid'}: dropped`);
      }
    });
    return Object.freeze(kept);
  };
  const object = (where: string, value: unknown, keys: readonly string[]): Record<string, unknown> | undefined => {
    if (value === undefined) {
      return undefined;
    }
    if (!isRecord(value)) {
      say(where, 'is not an object: ignored');
      return undefined;
    }
    for (const key of Object.keys(value)) {
      if (!keys.includes(key)) {
        say(`${where}.${key}`, `is not a key of ${where} (${keys.join(', ')}): ignored`);
      }
    }
    return value;
  };
  /** A flag whose narrow reading is `narrow`: anything but a boolean is read so. */
  const flag = (where: string, value: unknown, narrow: boolean): boolean => {
    if (typeof value === 'boolean') {
      return value;
    }
    say(where, `is not true or false: read as ${String(narrow)}`);
    return narrow;
  };
  const rules = (where: 'deny' | 'ask'): ManagedRuleLists => {
    const value = object(where, raw[where], ['terminal', 'paths', 'mcpTools']);
    if (value === undefined) {
      return emptyLists;
    }
    return {
      terminal: value['terminal'] === undefined ? [] : list(`${where}.terminal`, value['terminal'], checks.terminal, []),
      paths: value['paths'] === undefined ? [] : list(`${where}.paths`, value['paths'], checks.glob, []),
      mcpTools: value['mcpTools'] === undefined ? [] : list(`${where}.mcpTools`, value['mcpTools'], checks.glob, []),
    };
  };
  policy.deny = rules('deny');
  policy.ask = rules('ask');
  if (raw['protectedPaths'] !== undefined) {
    policy.protectedPaths = list('protectedPaths', raw['protectedPaths'], checks.glob, []);
  }
  const sandbox = object('sandbox', raw['sandbox'], ['required', 'allowedDomains', 'writablePaths']);
  if (sandbox !== undefined) {
    policy.sandbox = {
      required: sandbox['required'] === undefined ? false : flag('sandbox.required', sandbox['required'], true),
      ...(sandbox['allowedDomains'] !== undefined ? { allowedDomains: list('sandbox.allowedDomains', sandbox['allowedDomains'], checks.domain, []) } : {}),
      ...(sandbox['writablePaths'] !== undefined ? { writablePaths: list('sandbox.writablePaths', sandbox['writablePaths'], checks.folder, []) } : {}),
    };
  }
  const grants = object('grants', raw['grants'], ['workspace', 'autoApproveRules', 'maxMinutes']);
  if (grants !== undefined) {
    const minutes = grants['maxMinutes'];
    let maxMinutes: number | undefined;
    if (minutes !== undefined) {
      if (typeof minutes === 'number' && Number.isInteger(minutes) && minutes >= 1) {
        maxMinutes = minutes;
      } else {
        say('grants.maxMinutes', `${JSON.stringify(minutes)} is not a whole number of minutes (1 or more): read as 1`);
        maxMinutes = 1;
      }
    }
    policy.grants = {
      workspace: grants['workspace'] === undefined ? true : flag('grants.workspace', grants['workspace'], false),
      autoApproveRules: grants['autoApproveRules'] === undefined ? true : flag('grants.autoApproveRules', grants['autoApproveRules'], false),
      ...(maxMinutes !== undefined ? { maxMinutes } : {}),
    };
  }
  const mcp = object('mcp', raw['mcp'], ['allowedServers']);
  if (mcp?.['allowedServers'] !== undefined) {
    policy.mcp = { allowedServers: list('mcp.allowedServers', mcp['allowedServers'], checks.server, []) };
  }
  const model = object('model', raw['model'], ['allowedBaseUrls']);
  if (model?.['allowedBaseUrls'] !== undefined) {
    policy.model = { allowedBaseUrls: list('model.allowedBaseUrls', model['allowedBaseUrls'], checks.url, []) };
  }
  const audit = object('audit', raw['audit'], ['otlp']);
  if (audit?.['otlp'] !== undefined) {
    policy.audit = { otlp: audit['otlp'] };
    const { problem } = parseExportConfig(audit['otlp']);
    if (problem !== undefined) {
      say('audit.otlp', `cannot be used (${problem}): nothing is exported until it is fixed`);
    }
  }
  return { policy, problems };
}

/**
 * A managed file that exists, is honoured, but cannot be read at all: the narrowest policy there is, so that breaking
 * the file (or catching it mid-write) never frees anyone from it. Its deny and ask lists cannot be known, so every
 * gated call asks without a grant; commands never run unconfined; no MCP server starts; no model endpoint is allowed.
 */
export function unreadablePolicy(file: string): ManagedPolicy {
  return {
    ...emptyManagedPolicy(file),
    ask: { terminal: ['/.*/'], paths: ['**'], mcpTools: ['**'] },
    sandbox: { required: true, allowedDomains: [], writablePaths: [] },
    grants: { workspace: false, autoApproveRules: false, maxMinutes: 1 },
    mcp: { allowedServers: [] },
    model: { allowedBaseUrls: [] },
  };
}

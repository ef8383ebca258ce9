/**
 * The managed settings file's ceilings over the person's settings: the sandbox's allowed domains and writable folders
 * cut to those it covers, the MCP servers and model endpoints it lets be used. Each says what it cut, for the warning
 * that shows the person the managed value.
 */
import path from 'node:path';
import { domainsUnderCeiling } from '../sandbox/domains';
import type { SandboxInputs } from '../sandbox/gather';
import type { ManagedPolicy } from './managedSettings';

/** What is left of a person's list under a ceiling, and what was cut. */
export interface UnderCeiling {
  kept: readonly string[];
  cut: readonly string[];
}

/** A path as a glob that matches it alone (picomatch's special characters escaped). */
export function escapedGlob(literal: string): string {
  return literal.replace(/[\\*?[\]{}()!+@|]/g, (character) => `\\${character}`);
}

/** `toolgate.sandbox.allowedDomains` under the managed ceiling: a person's entry stays only if a managed one covers it. */
export function domainsUnder(person: readonly string[], policy: ManagedPolicy | undefined): UnderCeiling {
  return domainsUnderCeiling(person, policy?.sandbox.allowedDomains);
}

/** An absolute folder as written in a setting: `~/` is the home folder. */
function absoluteFolder(entry: string, home: string): string {
  return path.resolve(entry.startsWith('~/') ? path.join(home, entry.slice(2)) : entry);
}

/** `toolgate.sandbox.writablePaths` under the managed ceiling: a folder stays only inside one the managed file lists. */
export function writableUnder(person: readonly string[], policy: ManagedPolicy | undefined, home: string): UnderCeiling {
  const ceiling = policy?.sandbox.writablePaths;
  if (ceiling === undefined) {
    return { kept: person, cut: [] };
  }
  const roots = ceiling.map((entry) => absoluteFolder(entry, home));
  const kept: string[] = [];
  const cut: string[] = [];
  for (const entry of person) {
    const folder = absoluteFolder(entry, home);
    const inside = roots.some((root) => {
      const relative = path.relative(root, folder);
      return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
    });
    (inside ? kept : cut).push(entry);
  }
  return { kept, cut };
}

/** Why an MCP server may not start under the managed file, or undefined when it may. */
export function serverRefusal(name: string, policy: ManagedPolicy | undefined): string | undefined {
  const allowed = policy?.mcp.allowedServers;
  if (allowed === undefined || allowed.includes(name)) {
    return undefined;
  }
  return `the managed policy (${policy?.file ?? ''}) lets only ${allowed.length === 0 ? 'no MCP server' : allowed.map((server) => `"${server}"`).join(', ')} start`;
}

/** A base URL in one spelling, for comparing: no trailing slash, the scheme and host in lower case (as URL writes them). */
function canonicalUrl(url: string): string | undefined {
  try {
    return new URL(url).href.replace(/\/+$/, '');
  } catch {
    return undefined;
  }
}

/** Why a model endpoint may not be used under the managed file, or undefined when it may. */
export function baseUrlRefusal(baseUrl: string, policy: ManagedPolicy | undefined): string | undefined {
  const allowed = policy?.model.allowedBaseUrls;
  if (allowed === undefined) {
    return undefined;
  }
  const wanted = canonicalUrl(baseUrl);
  if (wanted !== undefined && allowed.some((entry) => canonicalUrl(entry) === wanted)) {
    return undefined;
  }
  return `the managed policy (${policy?.file ?? ''}) allows ${allowed.length === 0 ? 'no model endpoint' : `only the model endpoints ${allowed.join(', ')}`}, not ${baseUrl}`;
}

/**
 * The sandbox's inputs under the managed file: its protected paths read-only too, the person's writable folders and
 * allowed domains cut to its ceilings, and the audit export's headers file (the collector's credentials) hidden. The
 * managed file itself lies outside every writable folder, so no command can change it.
 */
export function sandboxInputsUnder(inputs: SandboxInputs, policy: ManagedPolicy | undefined, home: string): SandboxInputs {
  if (policy === undefined) {
    return inputs;
  }
  return {
    ...inputs,
    protectedGlobs: [...new Set([...inputs.protectedGlobs, ...policy.protectedPaths, ...managedFileInside(inputs.workspaceFolders, policy.file)])],
    extraWritable: writableUnder(inputs.extraWritable, policy, home).kept,
    extraHidden: [...inputs.extraHidden, ...exportHeadersFile(policy)],
    ...(inputs.allowedDomains !== undefined ? { allowedDomains: domainsUnder(inputs.allowedDomains, policy).kept } : {}),
    ...(policy.sandbox.allowedDomains !== undefined ? { allowedDomainsCeiling: policy.sandbox.allowedDomains } : {}),
  };
}

/** The audit export's headers file, which holds the collector's credentials, if the managed file names one. */
function exportHeadersFile(policy: ManagedPolicy): string[] {
  const otlp = policy.audit.otlp;
  const file = typeof otlp === 'object' && otlp !== null ? (otlp as Record<string, unknown>)['headersFile'] : undefined;
  return typeof file === 'string' && path.isAbsolute(file) ? [file] : [];
}

/** The managed file as a protected glob of each workspace folder that holds it (read-only to every command there). */
function managedFileInside(folders: readonly string[], file: string): string[] {
  return folders.flatMap((folder) => {
    const relative = path.relative(folder, file);
    return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative) ? [escapedGlob(relative.split(path.sep).join('/'))] : [];
  });
}

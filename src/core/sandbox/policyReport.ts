/**
 * **Toolgate: Show Sandbox Policy**: the effective sandbox policy of this workspace as text, each rule with the
 * setting it comes from, the allowed domains, the environment names a command gets, and the platform's own form (the
 * bubblewrap arguments on Linux, the Seatbelt profile on macOS). Any platform's form can be asked for on any machine,
 * so the macOS profile can be read and checked on Linux. `policyReportText` is pure; `sandboxPolicyReport` gathers.
 */
import path from 'node:path';
import picomatch from 'picomatch';
import { bwrapArgs } from './bwrap';
import { noOverlayReason } from './commandSandbox';
import { gatherSandboxPolicy, type SandboxInputs } from './gather';
import { inheritedVariables } from './environment';
import { credentialPaths, inside, type SandboxPolicy } from './policy';
import { proxyVariables } from './sandbox';
import { seatbeltLibrary, type SeatbeltBuilder } from './seatbelt';
import { seatbeltConfig } from './seatbeltConfig';

export type ReportPlatform = 'linux' | 'darwin';

/** The proxy port the shown profile names: each command's proxy listens on a free port of its own. */
export const reportProxyPort = 3128;
/** The proxy socket the shown bubblewrap arguments name: each command's proxy has a socket of its own. */
export const reportProxySocket = '<the command proxy socket>';

export interface PolicyReportFacts {
  platform: ReportPlatform;
  /** The platform the extension host runs on. */
  hostPlatform: string;
  inputs: SandboxInputs;
  policy: SandboxPolicy;
  /** toolgate.sandbox.passEnvironment. */
  passEnvironment: readonly string[];
  /** The platform's own form: bubblewrap's arguments, or the Seatbelt profile. */
  form: string;
  notes: readonly string[];
  /** The managed settings file's section (src/core/managed/managedReport.ts), when the report has one. */
  managed?: { title: string; lines: readonly string[] };
}

/** Where one path of the policy comes from, in the words of its setting. */
export function sourceOf(entry: string, kind: 'writable' | 'readOnly' | 'hidden', inputs: SandboxInputs): string {
  const folder = inputs.workspaceFolders.find((candidate) => inside(entry, candidate));
  if (kind === 'writable') {
    return folder === entry ? 'the workspace folder' : entry.includes('toolgate-sandbox') ? "Toolgate's per-workspace tool cache (npm, pip, cargo, go, yarn; TMPDIR on macOS)" : 'toolgate.sandbox.writablePaths';
  }
  if (kind === 'readOnly' && folder !== undefined) {
    const relative = path.relative(folder, entry);
    if (relative.split('/').includes('.git')) {
      return "toolgate.protectedPaths (in .git only git's control entries, which decide what git runs)";
    }
    const glob = inputs.protectedGlobs.find((candidate) => picomatch(candidate, { dot: true })(relative) || picomatch(candidate, { dot: true })(`${relative}/x`));
    return glob === undefined ? 'toolgate.protectedPaths' : `toolgate.protectedPaths \`${glob}\``;
  }
  if (inputs.ownStorage.some((storage) => inside(entry, storage) || inside(storage, entry))) {
    return "VS Code's and Toolgate's own storage";
  }
  if (credentialPaths.some((relative) => entry.endsWith(`/${relative}`))) {
    return 'the credential floor (built in; no setting lowers it)';
  }
  if (entry.startsWith('/run/user/')) {
    return 'agent sockets (built in)';
  }
  return 'toolgate.sandbox.hiddenPaths';
}

export function policyReportText(facts: PolicyReportFacts): string {
  const { policy, inputs } = facts;
  const darwin = facts.platform === 'darwin';
  const lines: string[] = [];
  const section = (title: string, entries: readonly string[]): void => {
    lines.push('', title, ...(entries.length === 0 ? ['  (none)'] : entries.map((entry) => `  ${entry}`)));
  };
  lines.push(
    `Toolgate sandbox policy for this workspace, as it applies on ${darwin ? 'macOS' : 'Linux'} (this machine: ${facts.hostPlatform})`,
    darwin
      ? `Engine: Seatbelt (sandbox-exec) with the profile ${seatbeltLibrary.name} ${seatbeltLibrary.version} builds from this policy`
      : "Engine: bubblewrap (bwrap) with Toolgate's own arguments",
    `What a command writes: ${darwin ? `not staged (${noOverlayReason})` : 'staged on an overlay and reviewed before it lands, while toolgate.sandbox.reviewCommandChanges is on'}`,
  );
  if (facts.managed !== undefined) {
    section(facts.managed.title, facts.managed.lines);
  }
  section('Writable', policy.writable.map((entry) => `${entry}  (${sourceOf(entry, 'writable', inputs)})`));
  section('Read-only inside them (protected paths; no folder above one can be renamed or removed)', policy.readOnly.map((entry) => `${entry}  (${sourceOf(entry, 'readOnly', inputs)})`));
  if (darwin) {
    section(
      'Read-only by pattern (protected paths made after the command starts)',
      (policy.readOnlyPatterns ?? []).map((pattern) => {
        const folder = inputs.workspaceFolders.find((candidate) => pattern.startsWith(`${candidate}/`));
        const glob = folder === undefined ? undefined : pattern.slice(folder.length + 1);
        const source = inputs.protectedGlobs.find((candidate) => glob !== undefined && (candidate === glob || candidate === `${glob}/**`));
        return `${pattern}  (toolgate.protectedPaths${source === undefined ? '' : ` \`${source}\``})`;
      }),
    );
  }
  section('Not readable at all', policy.hidden.map((entry) => `${entry.path}  (${sourceOf(entry.path, 'hidden', inputs)})`));
  lines.push('', 'Network');
  lines.push(
    policy.network === 'host'
      ? '  the whole network'
      : `  none but the domains below, through a filtering proxy of each command's own (${darwin ? 'on a loopback port, the only place the profile lets it connect to' : 'through a Unix socket; its own empty network namespace'})`,
  );
  section(`Allowed domains (toolgate.sandbox.allowedDomains${facts.managed !== undefined && facts.managed.lines.some((line) => line.startsWith('sandbox.allowedDomains')) ? ', cut to the managed ceiling' : ''})`, inputs.allowedDomains ?? []);
  section('Environment names a command gets from VS Code', [
    `${[...inheritedVariables, 'LC_*'].join(' ')}  (the allow-list)`,
    ...(facts.passEnvironment.length === 0 ? [] : [`${facts.passEnvironment.join(' ')}  (toolgate.sandbox.passEnvironment)`]),
  ]);
  section('Environment names the sandbox sets', [
    `${Object.keys(policy.env).join(' ')}  (its temporary folder and tool caches)`,
    `${Object.keys(darwin ? proxyVariables(reportProxyPort) : { HTTP_PROXY: '', HTTPS_PROXY: '', ALL_PROXY: '', http_proxy: '', https_proxy: '', all_proxy: '', NODE_USE_ENV_PROXY: '' }).join(' ')}  (the filtering proxy)`,
  ]);
  if (facts.notes.length > 0) {
    section('Notes', facts.notes);
  }
  lines.push(
    '',
    darwin
      ? `Seatbelt profile (each command's proxy listens on a port of its own, shown here as ${reportProxyPort}; the library adds write denies of its own under the command's folder)`
      : `bubblewrap arguments (each command's proxy has a socket of its own, shown here as ${reportProxySocket})`,
    facts.form,
  );
  return `${lines.join('\n')}\n`;
}

/** The report for `platform` (default: the host's, where it is one of the two), gathered now. */
export async function sandboxPolicyReport(options: {
  platform: ReportPlatform;
  hostPlatform: string;
  inputs: SandboxInputs;
  passEnvironment: readonly string[];
  seatbelt: () => Promise<SeatbeltBuilder>;
  managed?: { title: string; lines: readonly string[] };
}): Promise<string> {
  const darwin = options.platform === 'darwin';
  const { policy, notes } = await gatherSandboxPolicy({ ...options.inputs, engine: darwin ? 'seatbelt' : 'bwrap', staged: !darwin });
  const cwd = options.inputs.workspaceFolders[0] ?? '/';
  const form = darwin
    ? (await options.seatbelt()).profile(seatbeltConfig(policy, reportProxyPort), cwd)
    : ['bwrap', ...bwrapArgs(policy, cwd, { proxySocket: reportProxySocket })].map((arg) => (/^[\w./:=@+,-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'"'"'`)}'`)).join(' ');
  return policyReportText({ platform: options.platform, hostPlatform: options.hostPlatform, inputs: options.inputs, policy, passEnvironment: options.passEnvironment, form, notes, ...(options.managed !== undefined ? { managed: options.managed } : {}) });
}

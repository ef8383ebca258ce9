/**
 * The macOS sandbox's one door into @anthropic-ai/sandbox-runtime (pinned to exactly `seatbeltLibrary.version` in
 * package.json): its Seatbelt profile builder, `wrapCommandWithSandboxMacOS`, is an internal of the library
 * (dist/sandbox/macos-sandbox-utils.js), so nothing else imports it. The builder returns a shell line
 * (`env … /usr/bin/sandbox-exec -p '<profile>' <shell> -c <command>`) and runs nothing; Toolgate keeps only the
 * profile from it and sets the command's environment itself (./environment), as on Linux, so the library's own
 * variables (its `TMPDIR=/tmp/claude`, its `NO_PROXY`) never reach a command.
 *
 * The library's public API (`SandboxManager`) picks the platform from process.platform and starts its own proxies;
 * the builder does neither, so the profile can be built and checked on any machine (test/unit/seatbelt.test.ts keeps
 * it as a snapshot a version bump must regenerate on purpose).
 */
import { version as installedVersion } from '@anthropic-ai/sandbox-runtime/package.json';
import type { MacOSSandboxParams } from '@anthropic-ai/sandbox-runtime/dist/sandbox/macos-sandbox-utils.js';

/** The version whose profile the tests checked rule by rule. Another one counts as unknown: no sandbox (fail closed). */
export const seatbeltLibrary = { name: '@anthropic-ai/sandbox-runtime', version: '0.0.83' } as const;

/** macOS's own sandbox launcher. */
export const sandboxExec = '/usr/bin/sandbox-exec';

/**
 * What Toolgate gives the builder (./seatbeltConfig makes it from a SandboxPolicy): the paths, the network, and every
 * switch the library offers set to its closed side.
 */
export interface SeatbeltConfig {
  readConfig: { denyOnly: string[]; literalDenyOnly: string[] };
  writeConfig: { allowOnly: string[]; literalAllowOnly: string[]; denyWithinAllow: string[]; literalDenyWithinAllow: string[] };
  needsNetworkRestriction: boolean;
  /** The filtering proxy's loopback port: the only place the profile lets a command connect to. */
  httpProxyPort?: number;
  allowLocalBinding: false;
  allowAllUnixSockets: false;
  allowPty: false;
  allowGitConfig: false;
  enableWeakerNetworkIsolation: false;
  allowAppleEvents: false;
}

// Checked at compile time: what Toolgate sets is what the pinned library takes.
type Assignable<T extends Omit<MacOSSandboxParams, 'command'>> = T;
export type SeatbeltParamsChecked = Assignable<SeatbeltConfig>;

export interface SeatbeltBuilder {
  /**
   * The Seatbelt profile for `config`. `anchor` is the folder the library's own mandatory write denies are anchored
   * at (it reads them from process.cwd(): the command's folder here, never the extension host's).
   */
  profile(config: SeatbeltConfig, anchor: string, shell?: string): string;
}

/** Why the library cannot be used, in one line for the card. */
export class SeatbeltUnavailable extends Error {}

type Wrap = (params: MacOSSandboxParams) => string;

/**
 * Loads the builder, or rejects with `SeatbeltUnavailable` saying why (a version Toolgate does not know, the module
 * missing). `load` is for tests: the library's module as it would be imported.
 */
export async function loadSeatbelt(
  version: string = installedVersion,
  load: () => Promise<{ wrapCommandWithSandboxMacOS: Wrap }> = () => import('@anthropic-ai/sandbox-runtime/dist/sandbox/macos-sandbox-utils.js'),
): Promise<SeatbeltBuilder> {
  if (version !== seatbeltLibrary.version) {
    throw new SeatbeltUnavailable(`${seatbeltLibrary.name} is version ${version}, not the ${seatbeltLibrary.version} whose Seatbelt profile Toolgate checked`);
  }
  let wrap: Wrap;
  try {
    wrap = (await load()).wrapCommandWithSandboxMacOS;
  } catch (error) {
    throw new SeatbeltUnavailable(`${seatbeltLibrary.name} could not be loaded: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof wrap !== 'function') {
    throw new SeatbeltUnavailable(`${seatbeltLibrary.name} ${version} has no wrapCommandWithSandboxMacOS`);
  }
  return { profile: (config, anchor, shell = '/bin/bash') => profileOf(wrap, config, anchor, shell) };
}

/** The stand-in command whose wrapped line the profile is read from. */
const marker = 'toolgate-seatbelt-marker';

function profileOf(wrap: Wrap, config: SeatbeltConfig, anchor: string, shell: string): string {
  // The library anchors its mandatory denies at process.cwd(): that one read answers the command's folder, without
  // changing the extension host's working directory (nothing else runs between these lines).
  const own = Object.getOwnPropertyDescriptor(process, 'cwd');
  let line: string;
  try {
    Object.defineProperty(process, 'cwd', { value: () => anchor, configurable: true, writable: true });
    line = wrap({ ...config, command: marker, binShell: shell });
  } finally {
    if (own === undefined) {
      Reflect.deleteProperty(process, 'cwd');
    } else {
      Object.defineProperty(process, 'cwd', own);
    }
  }
  const words = shellWords(line);
  const at = words.indexOf(sandboxExec);
  const profile = words[at + 2];
  if (at < 0 || words[at + 1] !== '-p' || profile === undefined || words[at + 4] !== '-c' || words[at + 5] !== marker || words.length !== at + 6) {
    throw new SeatbeltUnavailable(`${seatbeltLibrary.name} built a line of a shape ${seatbeltLibrary.version} does not build`);
  }
  return profile;
}

/**
 * The words of the library's line: bare words and single-quoted ones (a `'` written `'"'"'`), the only forms its
 * quoting makes. Anything else is refused rather than guessed.
 */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let index = 0;
  while (index < line.length) {
    let word = '';
    while (index < line.length && line[index] !== ' ') {
      const char = line[index] as string;
      if (char === "'") {
        const end = line.indexOf("'", index + 1);
        if (end < 0) {
          throw new SeatbeltUnavailable('the library built a line with an unterminated quote');
        }
        word += line.slice(index + 1, end);
        index = end + 1;
      } else if (char === '"') {
        if (line.slice(index, index + 3) !== `"'"`) {
          throw new SeatbeltUnavailable('the library built a line with a double quote Toolgate does not read');
        }
        word += "'";
        index += 3;
      } else {
        word += char;
        index += 1;
      }
    }
    words.push(word);
    index += 1;
  }
  return words;
}

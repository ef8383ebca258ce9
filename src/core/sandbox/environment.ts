/**
 * What a process Toolgate starts for the agent inherits from the extension host's environment: a short allow-list,
 * never the rest. The host's environment holds the person's tokens (OPENAI_API_KEY, AWS_SECRET_ACCESS_KEY,
 * GITHUB_TOKEN), the ssh agent's socket and VS Code's own IPC handles; a command's output goes to the model, so `env`
 * would hand them over. Commands (in the sandbox or run without it) and stdio MCP servers start from this list, plus
 * the names the person adds in toolgate.sandbox.passEnvironment (a machine setting: no workspace can add a name), plus
 * what the sandbox itself sets (its TMPDIR and caches, the proxy variables, the bridge's) and an MCP server's own
 * configured `env`, which their launchers add on top.
 */
import * as z from '../../zod';

/** Passed as they are: where programs are, who and where the person is, the terminal, the language and time zone. */
export const inheritedVariables: readonly string[] = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TERM', 'LANG', 'TZ', 'TMPDIR'];
/** Passed by prefix: the locale categories (LC_ALL, LC_CTYPE, …). */
const inheritedPrefixes: readonly string[] = ['LC_'];
/**
 * On Windows (Git for Windows' bash, unconfined) programs cannot start without these: where Windows, the profile and
 * the temporary folder are, and how a command name becomes a file.
 */
const windowsVariables: readonly string[] = ['SYSTEMROOT', 'WINDIR', 'COMSPEC', 'PATHEXT', 'SYSTEMDRIVE', 'USERPROFILE', 'USERNAME', 'HOMEDRIVE', 'HOMEPATH', 'APPDATA', 'LOCALAPPDATA', 'PROGRAMFILES', 'PROGRAMDATA', 'TEMP', 'TMP'];

/** A name the setting may list: a portable shell variable name (no `=`, no NUL, nothing a shell would not export). */
export const EnvironmentName = z.string().check(z.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a variable name is letters, digits and _, not starting with a digit'));

/**
 * The part of `base` a started process inherits: the allow-list and `passed` (the setting's names), nothing else.
 * Windows names are compared without case, as Windows does.
 */
export function inheritedEnvironment(
  base: Readonly<Record<string, string | undefined>>,
  passed: readonly string[] = [],
  platform: NodeJS.Platform = process.platform,
): Record<string, string> {
  const windows = platform === 'win32';
  const fold = (name: string): string => (windows ? name.toUpperCase() : name);
  const names = new Set([...inheritedVariables, ...(windows ? windowsVariables : []), ...passed].map(fold));
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) {
    const name = fold(key);
    if (value !== undefined && (names.has(name) || inheritedPrefixes.some((prefix) => name.startsWith(prefix)))) {
      env[key] = value;
    }
  }
  return env;
}

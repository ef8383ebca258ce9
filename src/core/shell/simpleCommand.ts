/**
 * A deliberately narrow first line of defence until the full shell analysis lands: a command counts as "simple" only
 * if it is plain words (no quotes, expansions, operators, redirects, globs or newlines) and does not start with a
 * wrapper that runs another command. Only simple commands can be matched by rules or grants; anything else asks.
 */
const plainWords = /^[A-Za-z0-9_\-./:=@%+,]+(?: +[A-Za-z0-9_\-./:=@%+,]+)*$/;

/** Commands that run other commands (or code) given as their arguments. */
const wrappers = new Set([
  'env', 'sudo', 'doas', 'su', 'time', 'nice', 'ionice', 'timeout', 'nohup', 'xargs', 'find', 'exec', 'eval',
  'command', 'builtin', 'bash', 'sh', 'zsh', 'dash', 'ksh', 'fish', 'source', '.', 'npx', 'pnpx', 'bunx', 'watch',
  'strace', 'stdbuf', 'script', 'parallel', 'chroot', 'flock', 'setsid', 'unbuffer', 'busybox',
]);

export type SimpleCommandResult = { simple: string } | { concern: string };

export function analyseSimpleCommand(command: string): SimpleCommandResult {
  const trimmed = command.trim();
  if (!plainWords.test(trimmed)) {
    return { concern: 'the command uses shell syntax (quotes, expansions, operators, redirects or several lines)' };
  }
  const words = trimmed.split(/ +/);
  const first = words[0] ?? '';
  const name = first.includes('/') ? (first.split('/').pop() ?? first) : first;
  if (wrappers.has(name)) {
    return { concern: `\`${name}\` runs another command` };
  }
  if (name === 'git' && words.some((word) => word === '-c' || word.startsWith('--config') || word.startsWith('-c'))) {
    return { concern: '`git -c` can set a pager or alias that runs code' };
  }
  return { simple: words.join(' ') };
}

/**
 * Commands that run other commands (`env`, `sudo`, `timeout`, `xargs`, `find -exec`, `bash -c`, `eval`, `cd`, …):
 * looked through to the command they run, each recorded with the wrappers it was reached through, and what the
 * command table says of its words. A wrapper used in a way this file does not follow is a concern.
 */
import * as path from 'node:path';
import { type Context, clip, concern, harmlessTargets, targetsOf } from './analysisContext';
import type { PathReference } from './analysis';
import { readCommand } from './commandReader';
import type { FinishedWord } from './words';

const shells = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'mksh']);
/** Run another command in a way this analysis does not follow: always a concern. */
const opaqueWrappers = new Set([
  'doas', 'su', 'ionice', 'strace', 'ltrace', 'watch', 'script', 'parallel', 'chroot', 'flock', 'setsid', 'unbuffer',
  'busybox', 'source', '.', 'stdbuf', 'taskset', 'chrt', 'nsenter', 'unshare', 'firejail', 'runuser', 'pkexec',
  'trap', 'alias', 'coproc', 'fc', 'ssh', 'expect', 'tclsh', 'osascript', 'sg', 'newgrp', 'systemd-run', 'dbus-launch',
  'hash', 'enable', 'shopt', 'set', 'unalias', 'mapfile', 'readarray', 'read', 'getopts', 'let',
]);

/**
 * Records a sub-command with what the command table says of its words: its forms, the files and folders it reads or
 * works in (joined to every possible working folder), and the files it writes (as redirects, judged as file writes).
 * Words that change nothing a rule cares about (`git --no-pager`) are left out of the words rules match.
 */
function recordCommand(words: FinishedWord[], assignments: string[], via: string[], context: Context, openArgs: boolean, implicit?: string): void {
  const reading = readCommand(words);
  const kept = words.filter((_word, index) => !reading.neutral.includes(index));
  const shift = (at: number): number => at - reading.neutral.filter((index) => index < at).length;
  const paths: PathReference[] = [];
  for (const use of reading.paths) {
    const value = use.value.startsWith('~/') && context.home !== undefined ? context.home + use.value.slice(1) : use.value;
    for (const target of targetsOf(value, context)) {
      if (use.role === 'writes') {
        context.out.redirects.push({ op: use.raw.split(/[ =]/)[0] ?? use.raw, target, raw: use.raw, writes: !harmlessTargets.has(path.normalize(target)) });
      } else {
        paths.push({ role: use.role, target, raw: use.raw });
      }
    }
  }
  const values = kept.map((word) => word.value);
  const withoutGlobals = reading.globals.length === 0 ? undefined : words.filter((_word, index) => !reading.neutral.includes(index) && !reading.globals.includes(index)).map((word) => word.value);
  context.out.commands.push({
    words: values,
    ...(withoutGlobals !== undefined ? { withoutGlobals } : {}),
    text: values.join(' '),
    dynamic: kept.some((word) => word.dynamic),
    globs: kept.map((word) => word.glob),
    assignments,
    via,
    forms: reading.forms.map((form) => ({ ...form, at: shift(form.at) })),
    paths,
    openArgs,
    anyArguments: reading.anyArguments,
    ...(implicit !== undefined ? { implicit } : {}),
  });
}
/** Looks through wrappers (`env`, `sudo`, `timeout`, `xargs`, `find -exec`, `bash -c`, `eval`, …) and records. */
export function addCommand(words: FinishedWord[], assignments: string[], via: string[], context: Context, openArgs = false): void {
  if (words.length === 0) {
    return;
  }
  const record = (): void => recordCommand(words, assignments, via, context, openArgs);
  const head = words[0];
  if (!head || head.dynamic || head.glob) {
    if (head?.glob === true) {
      concern(context, 'expansion', `the command name \`${clip(head.value)}\` is a glob pattern`);
    }
    record();
    return;
  }
  const name = head.value;
  const rest = words.slice(1);
  const through = (label: string, inner: FinishedWord[], extraAssignments: string[] = [], fed = openArgs): void => {
    if (inner.length === 0) {
      record();
      return;
    }
    addCommand(inner, [...assignments, ...extraAssignments], [...via, label], context, fed);
  };
  const base = name.includes('/') ? name.slice(name.lastIndexOf('/') + 1) : name;
  if (opaqueWrappers.has(base)) {
    concern(context, 'wrapper', `\`${base}\` runs other commands or code that the analysis does not follow`);
    record();
    return;
  }
  switch (name) {
    case 'cd':
    case 'pushd':
      changeFolder(name, rest, context);
      recordCommand(words, assignments, via, context, openArgs, 'changes the working folder');
      return;
    case 'popd':
      // Back to a folder the line was already in: nothing new to judge.
      recordCommand(words, assignments, via, context, openArgs, 'changes the working folder');
      return;
    case 'set':
      if (rest.length > 0 && rest.every((word, index) => !word.dynamic && (/^[-+][euxv]+$/.test(word.value)
        || (/^[-+]o$/.test(word.value) && /^(pipefail|errexit|nounset|xtrace|verbose)$/.test(rest[index + 1]?.value ?? ''))
        || (/^(pipefail|errexit|nounset|xtrace|verbose)$/.test(word.value) && /^[-+]o$/.test(rest[index - 1]?.value ?? ''))))) {
        recordCommand(words, assignments, via, context, openArgs, 'sets shell options that stop on errors or trace');
      } else {
        concern(context, 'wrapper', `\`${clip(words.map((word) => word.value).join(' '))}\` changes how the shell reads later commands`);
        record();
      }
      return;
    case 'env':
      lookThroughEnv(rest, context, record, through);
      return;
    case 'sudo':
      concern(context, 'privilege', '`sudo` runs a command as another user');
      lookThroughOptions(name, rest, /^-[ugCDhprtTU]$/, /^-(?:[AbEHiKknPSsVvlB]+)$|^--[a-z-]+$/, record, through, context);
      return;
    case 'time':
      lookThroughOptions(name, rest, /^$/, /^-p$/, record, through, context);
      return;
    case 'nice':
      lookThroughOptions(name, rest, /^-n$/, /^-\d+$|^--adjustment=-?\d+$/, record, through, context);
      return;
    case 'nohup':
    case 'command':
    case 'builtin':
      if (name === 'command' && rest[0] !== undefined && /^-[vV]+$/.test(rest[0].value)) {
        record();
        return;
      }
      lookThroughOptions(name, rest, /^$/, name === 'command' ? /^-p$/ : /^$/, record, through, context);
      return;
    case 'exec':
      lookThroughOptions(name, rest, /^-a$/, /^-[cl]+$/, record, through, context);
      return;
    case 'timeout': {
      const options = /^-[sk]$/;
      let index = 0;
      while (index < rest.length) {
        const word = rest[index]?.value ?? '';
        if (options.test(word)) {
          index += 2;
        } else if (/^--(signal|kill-after)=|^--(preserve-status|foreground|verbose)$|^-v$|^-[sk].+/.test(word)) {
          index += 1;
        } else if (word === '--') {
          index += 1;
          break;
        } else {
          break;
        }
      }
      const duration = rest[index];
      if (!duration || !/^\d+(\.\d+)?[smhd]?$/.test(duration.value)) {
        concern(context, 'wrapper', '`timeout` is used in a way the analysis does not follow');
        record();
        return;
      }
      through('timeout', rest.slice(index + 1));
      return;
    }
    case 'xargs':
      lookThroughXargs(rest, record, through, context);
      return;
    case 'find':
      lookThroughFind(words, via, through, context);
      return;
    case 'eval': {
      if (rest.some((word) => word.dynamic || word.glob)) {
        concern(context, 'eval', '`eval` runs code built from expansions');
        record();
        return;
      }
      if (rest.length === 0) {
        return;
      }
      nested(rest.map((word) => word.value).join(' '), 'eval', via, context);
      return;
    }
    default:
      break;
  }
  if (shells.has(name)) {
    lookThroughShell(name, rest, record, via, context);
    return;
  }
  record();
}

function nested(source: string, label: string, via: string[], context: Context): void {
  const inner: Context = { ...context, depth: context.depth + 1, out: { commands: [], redirects: [], concerns: [], cwds: context.out.cwds } };
  try {
    context.walk.source(source, inner);
  } catch (error) {
    concern(context, 'parse-error', `the code given to \`${label}\` could not be parsed (${error instanceof Error ? error.message : String(error)})`);
  }
  for (const command of inner.out.commands) {
    context.out.commands.push({ ...command, via: [...via, label, ...command.via] });
  }
  context.out.redirects.push(...inner.out.redirects);
  for (const item of inner.out.concerns) {
    concern(context, item.kind, item.detail);
  }
}

type Through = (label: string, inner: FinishedWord[], extraAssignments?: string[], fed?: boolean) => void;

/** `cd DIR`: every later path may be relative to DIR too (analyseCommand runs again with it); an unknown DIR asks. */
function changeFolder(name: string, rest: FinishedWord[], context: Context): void {
  const operands = rest.filter((word, index) => !(index === 0 && /^-[LPe@]+$/.test(word.value) && !word.dynamic));
  const target = operands[0];
  if (operands.length > 1) {
    concern(context, 'folder', `\`${name}\` is given more than one folder`);
    return;
  }
  if (context.inLoop) {
    concern(context, 'folder', `\`${name}\` inside a loop may run any number of times`);
    return;
  }
  if (!target) {
    if (context.home === undefined) {
      concern(context, 'folder', `\`${name}\` with no folder goes to the home folder, which is not known`);
    } else {
      context.folderChanges.push(context.home);
    }
    return;
  }
  if (target.dynamic || target.glob || target.value === '-' || /^[-+]\d*$/.test(target.value)) {
    concern(context, 'folder', `\`${name} ${clip(target.value)}\` changes to a folder the analysis cannot tell`);
    return;
  }
  context.folderChanges.push(target.value);
}

/** Skips the wrapper's options (`withArgument` takes the next word; `flag` stands alone); unknown options ask. */
function lookThroughOptions(
  name: string,
  rest: FinishedWord[],
  withArgument: RegExp,
  flag: RegExp,
  record: () => void,
  through: Through,
  context: Context,
): void {
  let index = 0;
  while (index < rest.length) {
    const word = rest[index];
    if (!word || word.dynamic || word.glob) {
      break;
    }
    if (word.value === '--') {
      index++;
      break;
    }
    if (!word.value.startsWith('-')) {
      break;
    }
    if (withArgument.test(word.value)) {
      index += 2;
    } else if (flag.test(word.value)) {
      index++;
    } else {
      concern(context, 'wrapper', `\`${name} ${word.value}\` is an option the analysis does not follow`);
      record();
      return;
    }
  }
  through(name, rest.slice(index));
}

function lookThroughEnv(rest: FinishedWord[], context: Context, record: () => void, through: Through): void {
  const extra: string[] = [];
  let index = 0;
  while (index < rest.length) {
    const word = rest[index];
    if (!word || word.dynamic) {
      break;
    }
    const value = word.value;
    if (value === '-i' || value === '-' || value === '--ignore-environment' || value === '-0' || value === '--null') {
      index++;
    } else if (value === '-u' || value === '--unset') {
      index += 2;
    } else if (/^(-u.+|--unset=.+)$/.test(value)) {
      index++;
    } else if (value === '--') {
      index++;
    } else if (value.startsWith('-')) {
      concern(context, 'wrapper', `\`env ${value}\` is an option the analysis does not follow`);
      record();
      return;
    } else if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(value)) {
      extra.push(value);
      index++;
    } else {
      break;
    }
  }
  if (extra.length > 0) {
    concern(context, 'assignment', `\`env ${clip(extra.join(' '))}\` sets environment variables, which can change what a command runs`);
  }
  if (index >= rest.length) {
    record();
    return;
  }
  through('env', rest.slice(index), extra);
}

function lookThroughXargs(rest: FinishedWord[], record: () => void, through: Through, context: Context): void {
  const withArgument = /^-[adEeIiLlnPs]$|^--(arg-file|delimiter|eof|replace|max-lines|max-args|max-procs|max-chars|process-slot-var)$/;
  const attached = /^-[adEeIiLlnPs].+|^--(arg-file|delimiter|eof|replace|max-lines|max-args|max-procs|max-chars|process-slot-var)=/;
  const flag = /^-[0rtpx]+$|^--(null|no-run-if-empty|verbose|interactive|exit|open-tty|show-limits)$/;
  let index = 0;
  let replace: string | undefined;
  while (index < rest.length) {
    const word = rest[index];
    if (!word || word.dynamic || word.glob) {
      break;
    }
    const value = word.value;
    if (value === '--') {
      index++;
      break;
    }
    if (!value.startsWith('-')) {
      break;
    }
    // -I R, -IR, -i[R], --replace[=R]: R in the command's words is replaced by input the analysis never sees.
    if (/^(-I|--replace)$/.test(value)) {
      replace = rest[index + 1]?.value;
    } else if (/^-I.|^-i|^--replace/.test(value)) {
      replace = value.replace(/^(-I|-i|--replace=?)/, '') || '{}';
    }
    if (value === '--replace' || flag.test(value) || attached.test(value) || /^-i/.test(value)) {
      index++;
    } else if (withArgument.test(value)) {
      index += 2;
    } else {
      concern(context, 'wrapper', `\`xargs ${value}\` is an option the analysis does not follow`);
      record();
      return;
    }
  }
  const inner = rest.slice(index).map((word) => (replace !== undefined && replace !== '' && word.value.includes(replace) ? { ...word, dynamic: true } : word));
  // What xargs reads from its input becomes more arguments, or (with -I) parts of them: the command is fed.
  through('xargs', inner.length > 0 ? inner : [{ value: 'echo', dynamic: false, glob: false }], [], true);
}

function lookThroughFind(words: FinishedWord[], via: string[], through: Through, context: Context): void {
  const own: FinishedWord[] = [];
  let index = 0;
  while (index < words.length) {
    const word = words[index];
    if (!word) {
      break;
    }
    const value = word.value;
    if (['-exec', '-execdir', '-ok', '-okdir'].includes(value)) {
      own.push(word);
      const end = words.findIndex((candidate, at) => at > index && !candidate.dynamic && (candidate.value === ';' || candidate.value === '+'));
      if (end === -1) {
        concern(context, 'wrapper', `\`find ${value}\` has no terminating \`;\` or \`+\``);
        index = words.length;
        break;
      }
      // find puts each file name where `{}` stands: those words are not known from the text.
      through(`find ${value}`, words.slice(index + 1, end).map((inner) => (inner.value.includes('{}') ? { ...inner, dynamic: true } : inner)));
      own.push({ value: '…', dynamic: false, glob: false }, words[end] ?? word);
      index = end + 1;
      continue;
    }
    if (/^-(delete|fprint0?|fprintf|fls)$/.test(value)) {
      concern(context, 'find', `\`find ${value}\` deletes or writes files`);
    }
    own.push(word);
    index++;
  }
  // `find` itself is a command too (`find . -name x` needs a rule), and its start folders are read.
  recordCommand(own, [], via, context, false);
}

function lookThroughShell(name: string, rest: FinishedWord[], record: () => void, via: string[], context: Context): void {
  let index = 0;
  let sawC = false;
  while (index < rest.length) {
    const word = rest[index];
    if (!word || word.dynamic || word.glob) {
      break;
    }
    const value = word.value;
    if (/^-[euxvc]+$/.test(value) && value !== '-') {
      if (value.includes('c')) {
        sawC = true;
      }
      index++;
    } else if (value === '-o' || value === '+o') {
      index += 2;
    } else if (value === '--norc' || value === '--noprofile') {
      index++;
    } else {
      break;
    }
  }
  if (!sawC) {
    // `bash script.sh`, `sh` reading stdin: a command like any other, which needs its own rule.
    record();
    return;
  }
  const script = rest[index];
  if (!script || script.dynamic || script.glob) {
    concern(context, 'shell', `\`${name} -c\` runs code that is not a fixed string`);
    record();
    return;
  }
  if (name === 'zsh' || name === 'ksh' || name === 'mksh') {
    concern(context, 'shell', `\`${name} -c\` code is parsed as bash, which may differ from how ${name} reads it`);
  }
  nested(script.value, `${name} -c`, via, context);
}

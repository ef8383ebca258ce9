/**
 * Reads a sub-command's words against the command table (commandTable.ts): the forms a rule must name, the paths its
 * options and operands read, write or touch, and the words that change nothing a rule cares about.
 *
 * Long options match by abbreviation too (getopt_long, git's parse-options and npm's nopt all accept a prefix):
 * `--scr=x` is `--script-shell=x` to npm, `--ou=x` is `--output=x` to git. Any prefix of a listed option counts, so an
 * ambiguous abbreviation asks too. A one-letter option counts anywhere in a cluster (`-xC`), with its value attached
 * (`-Cdir`) or in the next word.
 */
import { type CommandSpec, type OptionEffect, type OptionSpec, commandTable } from './commandTable';

/** Whether `word` (`--name` or `--name=value`) spells `option`, abbreviations included. */
export function longMatches(word: string, option: string): boolean {
  const name = word.includes('=') ? word.slice(0, word.indexOf('=')) : word;
  return name.length >= 3 && option.startsWith(name);
}

/** One word as the analysis resolved it. */
export interface TableWord {
  value: string;
  dynamic: boolean;
  glob: boolean;
}

/** A form of a command that a rule must name: a prefix rule with more than `at` words names it. */
export interface Form {
  /** Index of the word where the form starts; `Infinity` for a form no rule can name. */
  at: number;
  why: string;
}

export interface PathUse {
  role: Exclude<OptionEffect, 'form'>;
  /** As written (after quote removal); relative to the working folder unless absolute. */
  value: string;
  raw: string;
}

export interface CommandReading {
  forms: Form[];
  paths: PathUse[];
  /** Indices of words that change nothing a rule cares about (`git --no-pager`): left out when rules match. */
  neutral: number[];
  /**
   * Indices of the options (and their values) before a subcommand that do change something (`git -C dir`): kept for
   * the rules that allow, left out of the form a `false` rule is also checked against (`git push` catches them too).
   */
  globals: number[];
  anyArguments: boolean;
}

/** A glob that may expand to a word starting with `-`, which the command would read as an option. */
export const mayBecomeOption = (word: TableWord): boolean => word.glob && /^[-*?[]/.test(word.value);
/** The folder a glob word starts in (`src/*.ts` -> `src`, `*` -> `.`), which is what a reader reaches. */
const globFolder = (value: string): string => {
  const literal = value.slice(0, value.search(/[*?[]/));
  const slash = literal.lastIndexOf('/');
  return slash === -1 ? '.' : literal.slice(0, slash) || '/';
};

const packageRunners = new Set(['npx', 'pnpx', 'bunx']);
const pythons = new Set(['python', 'python3']);

/** `npx eslint@9 …` -> eslint from word 2; `python3 -m pytest …` -> pytest from word 3; else nothing. */
function toolOf(command: string, words: readonly TableWord[]): { name: string; label: string; start: number } | undefined {
  const named = (word: TableWord | undefined): string | undefined =>
    word === undefined || word.dynamic || word.glob || word.value.startsWith('-') ? undefined : word.value;
  if (packageRunners.has(command)) {
    const pkg = named(words[1]);
    // The package's last path part without a version: `@scope/tool@1.2` -> tool.
    const name = pkg?.slice(pkg.lastIndexOf('/') + 1).replace(/(.)@.*$/, '$1');
    return pkg === undefined || name === undefined || !Object.hasOwn(commandTable, name) ? undefined : { name, label: `${command} ${pkg}`, start: 2 };
  }
  if (pythons.has(command) && words[1]?.value === '-m' && !words[1].dynamic) {
    const module = named(words[2]);
    return module === undefined || !Object.hasOwn(commandTable, module) ? undefined : { name: module, label: `${command} -m ${module}`, start: 3 };
  }
  return undefined;
}

/** Reads a sub-command's words (the first is the command name) against the table. */
export function readCommand(words: readonly TableWord[]): CommandReading {
  const reading: CommandReading = { forms: [], paths: [], neutral: [], globals: [], anyArguments: false };
  const first = words[0];
  if (!first) {
    return reading;
  }
  const command = first.value.slice(first.value.lastIndexOf('/') + 1);
  // A tool run through a package runner (`npx eslint`) or as a module (`python -m pytest`) is read as that tool.
  const tool = toolOf(command, words);
  const name = tool?.name ?? command;
  const spec = Object.hasOwn(commandTable, name) ? commandTable[name] : undefined;
  if (!spec) {
    return reading;
  }
  reading.anyArguments = spec.anyArguments === true;
  let index = tool?.start ?? 1;
  let active: CommandSpec = spec;
  let label = tool?.label ?? name;
  const subcommands = spec.subcommands;
  if (subcommands) {
    while (index < words.length) {
      const word = words[index];
      if (!word || word.dynamic || !word.value.startsWith('-') || word.value === '-' || word.value === '--') {
        break;
      }
      if (word.glob) {
        reading.forms.push({ at: index, why: `\`${word.value}\` may expand to a file name that \`${name}\` reads as an option` });
        index++;
        continue;
      }
      const bare = word.value.includes('=') ? word.value.slice(0, word.value.indexOf('=')) : word.value;
      if (subcommands.neutral.includes(bare)) {
        reading.neutral.push(index);
        index++;
        continue;
      }
      const used = matchOption(words, index, subcommands.global, label, reading);
      if (used === 0) {
        reading.forms.push({ at: index, why: `\`${name} ${word.value}\` is an option Toolgate does not know to be harmless` });
        index++;
      } else {
        reading.globals.push(...Array.from({ length: used }, (_unused, offset) => index + offset));
        index += used;
      }
    }
    const sub = words[index];
    if (!sub) {
      return reading;
    }
    const known = !sub.dynamic && Object.hasOwn(subcommands.known, sub.value) ? subcommands.known[sub.value] : undefined;
    if (!known) {
      reading.forms.push({ at: index, why: `\`${name} ${sub.value}\` ${subcommands.unknown ?? 'is not a subcommand Toolgate knows'}` });
      return reading;
    }
    active = known;
    label = `${name} ${sub.value}`;
    index++;
  }
  readArguments(active, words, index, label, reading);
  return reading;
}

function readArguments(spec: CommandSpec, words: readonly TableWord[], start: number, label: string, reading: CommandReading): void {
  const rest = words.slice(start).map((word) => word.value);
  if (spec.form !== undefined) {
    reading.forms.push({ at: start - 1, why: `\`${label}\` ${spec.form}` });
  }

  const present = spec.formIf && rest.find((word) => spec.formIf?.words.includes(word));
  if (spec.formIf && present !== undefined) {
    reading.forms.push({ at: start + rest.indexOf(present), why: `\`${label} ${present}\` ${spec.formIf.why}` });
  }
  // Only where an option can do harm does a glob that may expand to one (`*` -> `--output=x`) matter.
  const hasOptions = (spec.options?.length ?? 0) > 0 || spec.onlyOptions !== undefined;
  const operands: number[] = [];
  let optionsEnded = false;
  for (let index = start; index < words.length; index++) {
    const word = words[index];
    if (!word) {
      continue;
    }
    const value = word.value;
    if (!optionsEnded && value === '--' && !word.dynamic) {
      if (spec.afterDoubleDash !== undefined) {
        reading.forms.push({ at: index, why: `\`${label} --\` ${spec.afterDoubleDash}` });
        return;
      }
      optionsEnded = true;
      continue;
    }
    if (hasOptions && mayBecomeOption(word)) {
      reading.forms.push({ at: index, why: `\`${value}\` may expand to a file name that \`${label}\` reads as an option` });
      continue;
    }
    if (!optionsEnded && !word.dynamic && value.startsWith('-') && value !== '-') {
      const used = matchOption(words, index, spec.options ?? [], label, reading);
      if (used > 0) {
        index += used - 1;
        continue;
      }
      const bare = value.includes('=') ? value.slice(0, value.indexOf('=')) : value;
      if (spec.onlyOptions && !spec.onlyOptions.includes(bare)) {
        reading.forms.push({ at: index, why: `\`${label} ${value}\` is an option Toolgate does not know to be harmless` });
      } else if (spec.operands === 'reads' || spec.operands === 'program') {
        // An attached value that names a file (`--exclude-from=../x`, `-f/etc/x`) is read too.
        const attached = value.includes('=') ? value.slice(value.indexOf('=') + 1) : value.startsWith('--') ? '' : value.slice(2);
        if (/^[~/.]|\//.test(attached)) {
          reading.paths.push({ role: 'reads', value: attached, raw: value });
        }
      }
      continue;
    }
    // make takes any operand with `=` as a variable definition (`SHELL:=…`, `X::=…`, `X!=cmd`, `X+=…`, `X?=…`).
    if (spec.assignments !== undefined && !word.dynamic && value.includes('=')) {
      reading.forms.push({ at: index, why: `\`${value}\` ${spec.assignments}` });
      continue;
    }
    operands.push(index);
  }
  const unless = spec.formUnless;
  const reassured = unless && (rest.some((word) => unless.words.includes(word)) || (unless.operandsAtMost !== undefined && operands.length <= unless.operandsAtMost && rest.every((word) => !word.startsWith('-') || unless.words.includes(word) || /^--(global|local|system|worktree|show-origin|show-scope|null|name-only)$/.test(word))));
  if (unless && !reassured) {
    reading.forms.push({ at: start - 1, why: `\`${label}\` ${unless.why}` });
  }
  const operandWord = (index: number | undefined): TableWord | undefined => (index === undefined ? undefined : words[index]);
  const use = (role: PathUse['role'], index: number): void => {
    const word = operandWord(index);
    if (word) {
      reading.paths.push({ role, value: word.glob ? globFolder(word.value) : word.value, raw: word.value });
    }
  };
  switch (spec.operands) {
    case 'reads':
    case 'writes':
    case 'touches': {
      const role = spec.operands;
      operands.forEach((index) => use(role, index));
      break;
    }
    case 'readsThenWrites': {
      const [input, output] = operands;
      if (input !== undefined) {
        use('reads', input);
      }
      if (output !== undefined) {
        use('writes', output);
      }
      break;
    }
    case 'remote': {
      const remote = operandWord(operands[0]);
      if (remote && (remote.dynamic || /[:/\\@]|^\./.test(remote.value))) {
        reading.forms.push({ at: operands[0] ?? Infinity, why: `\`${label} ${remote.value}\` fetches from a repository named by URL or path, whose content can then be checked out` });
      }
      break;
    }
    case 'program': {
      const [program, ...files] = operands;
      if (program !== undefined) {
        reading.forms.push({ at: program, why: `\`${label}\` runs the program given on the command line` });
      }
      files.forEach((index) => use('reads', index));
      break;
    }
    case 'script': {
      const passed = operands[1];
      if (passed !== undefined) {
        reading.forms.push({ at: passed, why: `\`${label}\` passes arguments to the script, which can change what it runs` });
      }
      break;
    }
    case 'passed': {
      const passed = operands[0];
      if (passed !== undefined) {
        reading.forms.push({ at: passed, why: `\`${label}\` passes arguments to the script, which can change what it runs` });
      }
      break;
    }
    default:
      break;
  }
  if (spec.stdinCode === true && operands.length === 0 && !rest.some((word) => spec.stdinUnless?.includes(word))) {
    reading.forms.push({ at: Infinity, why: `\`${label}\` with no script reads code from standard input` });
  }
}

/** Matches an option at `index` against `specs`; records its form or path; returns how many words it used (0: none). */
function matchOption(words: readonly TableWord[], index: number, specs: readonly OptionSpec[], label: string, reading: CommandReading): number {
  const word = words[index];
  if (!word) {
    return 0;
  }
  const value = word.value;
  let spec: OptionSpec | undefined;
  let attached: string | undefined;
  if (value.startsWith('--')) {
    spec = specs.find((candidate) => candidate.long?.some((option) => longMatches(value, option)));
    attached = value.includes('=') ? value.slice(value.indexOf('=') + 1) : undefined;
  } else {
    const letters = value.slice(1);
    for (let at = 0; at < letters.length && !spec; at++) {
      spec = specs.find((candidate) => candidate.short?.includes(letters.charAt(at)));
      if (spec) {
        attached = letters.slice(at + 1) || undefined;
      }
    }
  }
  if (!spec) {
    return 0;
  }
  const next = spec.value === true && attached === undefined ? words[index + 1] : undefined;
  const used = next ? 2 : 1;
  const raw = next ? `${value} ${next.value}` : value;
  if (spec.effect === 'form') {
    reading.forms.push({ at: index, why: `\`${label} ${raw}\` ${spec.why}` });
    return used;
  }
  const target = attached ?? next;
  const targetWord: TableWord | undefined = typeof target === 'string' ? { value: target, dynamic: word.dynamic, glob: word.glob } : target;
  if (!targetWord || targetWord.dynamic || targetWord.glob || targetWord.value === '-') {
    reading.forms.push({ at: index, why: `\`${label} ${raw}\` ${spec.why}, somewhere the analysis cannot tell` });
    return used;
  }
  reading.paths.push({ role: spec.effect, value: targetWord.value, raw });
  return used;
}

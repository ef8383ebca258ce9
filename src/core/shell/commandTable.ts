/**
 * What each known command's words mean, as data: which options run code, change configuration or point somewhere
 * else, which operands are files it reads, which forms pass arguments on to a script. commandReader.ts reads a
 * sub-command's words against this table; rules.ts then refuses to let a rule allow a form the rule does not name word
 * for word.
 */

/**
 * What using a form does: `form` needs a rule that names it; the others are paths the rules check: `reads` and
 * `folder` must be inside the workspace, `touches` (deleted, moved, created empty, restored by git) must be inside and
 * not protected, `writes` is judged as `write_file` would be.
 */
export type OptionEffect = 'form' | 'reads' | 'writes' | 'folder' | 'touches';

export interface OptionSpec {
  /** `--name` spellings. */
  long?: readonly string[];
  /** One-letter spellings, without the dash. */
  short?: readonly string[];
  /** Whether it takes a value (attached with `=`/directly, or the next word). */
  value?: boolean;
  effect: OptionEffect;
  why: string;
}

/** What the operands (non-option words) of a command are. */
export type OperandKind =
  /** files the command reads: each must be inside the workspace */
  | 'reads'
  /** the first is a script name (`npm run build`); any further operand is passed to that script: a form */
  | 'script'
  /** any operand is passed on to a script: a form (`npm test foo`) */
  | 'passed'
  /** the first operand is a program (awk): a form; the rest are files read */
  | 'program'
  /** files the command writes: each is judged as a file write */
  | 'writes'
  /** the first operand is read, the second written (`uniq in out`): judged as a read and a file write */
  | 'readsThenWrites'
  /** files or folders it deletes, moves, copies over or creates: each must be inside and not protected */
  | 'touches'
  /** the first operand names a repository: a URL or a path is a form (`git pull https://…`) */
  | 'remote';

export interface CommandSpec {
  options?: readonly OptionSpec[];
  /** When set, any option not listed here nor in `options` is a form (npm: its options are a long, open list). */
  onlyOptions?: readonly string[];
  operands?: OperandKind;
  /** A `NAME=value` operand is a form, with this reason (make: a variable override can inject commands). */
  assignments?: string;
  /** Words from `--` on are a form, with this reason (npm: passed to the script). */
  afterDoubleDash?: string;
  /** With no operand (and none of `stdinUnless`), the command reads code from standard input: a form. */
  stdinCode?: boolean;
  stdinUnless?: readonly string[];
  /**
   * The whole command (or subcommand) is a form unless one of these words is present (`git config --get`), or it has
   * at most `operandsAtMost` operands (`git config user.name` reads, `git config user.name x` writes).
   */
  formUnless?: { words: readonly string[]; why: string; operandsAtMost?: number };
  /** The whole command (or subcommand) is a form. */
  form?: string;
  /** The command is a form when one of these words is present (`git hash-object -w`). */
  formIf?: { words: readonly string[]; why: string };
  /** Its arguments can be anything without harm: it may be fed arguments it did not see (xargs). */
  anyArguments?: boolean;
  /** A subcommand comes first (after `global` options). */
  subcommands?: {
    global: readonly OptionSpec[];
    /** Global flags that change nothing a rule cares about: dropped before rules match (`git --no-pager log`). */
    neutral: readonly string[];
    known: Readonly<Record<string, CommandSpec>>;
    /** An unlisted subcommand (a git alias can be any program) is a form, with this reason. */
    unknown?: string;
  };
}

const runs = (why: string, long: string[], short: string[] = [], value = true): OptionSpec => ({ long, short, value, effect: 'form', why });
const path = (effect: Exclude<OptionEffect, 'form'>, long: string[], short: string[] = [], why = ''): OptionSpec => ({ long, short, value: true, effect, why });

const gitDiffOptions: OptionSpec[] = [
  path('writes', ['--output'], [], 'writes its output to a file'),
  runs('runs an external diff program', ['--ext-diff'], [], false),
  runs('runs text conversion programs', ['--textconv'], [], false),
  runs('compares files anywhere on disk, outside the repository', ['--no-index'], [], false),
  path('reads', ['--orderfile'], ['O'], 'reads an order file'),
];
const gitNetwork: OptionSpec[] = [
  runs('runs the given program on the other side', ['--upload-pack', '--receive-pack', '--exec']),
  runs('sets configuration, which can run programs', ['--config']),
];
const plain: CommandSpec = {};
const gitSub = (spec: CommandSpec, ...names: string[]): Record<string, CommandSpec> =>
  Object.fromEntries(names.map((name) => [name, spec]));

const git: CommandSpec = {
  subcommands: {
    global: [
      runs('sets configuration, which can run programs', ['--config-env'], ['c']),
      runs('runs git programs from another folder', ['--exec-path']),
      path('folder', ['--git-dir', '--work-tree'], [], 'works on another repository'),
      path('folder', [], ['C'], 'works in another folder'),
      runs('changes the namespace', ['--namespace', '--super-prefix']),
    ],
    neutral: ['--no-pager', '-P', '--paginate', '-p', '--no-optional-locks', '--literal-pathspecs', '--glob-pathspecs',
      '--noglob-pathspecs', '--icase-pathspecs', '--no-replace-objects', '--no-lazy-fetch', '--no-advice', '--version',
      '-v', '--help', '-h', '--html-path', '--man-path', '--info-path'],
    known: {
      ...gitSub({ options: gitDiffOptions }, 'diff', 'log', 'show', 'whatchanged', 'diff-tree', 'diff-files', 'diff-index', 'range-diff', 'shortlog', 'format-patch'),
      // Given a path outside the repository, `git diff` switches to --no-index by itself and prints any file: its
      // operands (revisions or paths) must be inside the workspace.
      diff: { options: gitDiffOptions, operands: 'reads' },
      // `git stash push -- PATH` resets PATH to HEAD; its other operands are stash names, which are never protected.
      stash: { options: [...gitDiffOptions, path('reads', ['--pathspec-from-file'], [], 'reads a path list file')], operands: 'touches' },
      ...gitSub(plain, 'status', 'branch', 'tag', 'add', 'mv', 'rm', 'reset', 'restore', 'switch', 'checkout', 'commit',
        'merge', 'revert', 'cherry-pick', 'cherry', 'describe', 'rev-parse', 'rev-list', 'ls-files', 'ls-tree', 'cat-file',
        'show-ref', 'for-each-ref', 'reflog', 'notes', 'blame', 'annotate', 'clean', 'gc', 'fsck', 'count-objects',
        'check-ignore', 'check-attr', 'check-mailmap', 'merge-base', 'name-rev', 'show-branch', 'stripspace', 'var',
        'version', 'init', 'sparse-checkout', 'prune', 'repack', 'pack-refs', 'update-index', 'update-ref', 'symbolic-ref',
        'write-tree', 'read-tree', 'commit-tree', 'mktree', 'mktag', 'verify-commit', 'verify-tag', 'interpret-trailers',
        'column', 'fmt-merge-msg', 'merge-file', 'merge-tree', 'rerere', 'request-pull', 'patch-id',
        'fetch', 'pull', 'push', 'ls-remote', 'remote', 'bundle', 'archive', 'worktree', 'grep', 'help',
        'config', 'submodule', 'rebase', 'bisect', 'hash-object', 'checkout-index'),
      // Working-tree writers: a path they name must not be protected (`git checkout -- .vscode/settings.json`).
      ...gitSub({ operands: 'touches' }, 'rm', 'mv', 'restore'),
      checkout: { operands: 'touches', options: [path('touches', ['--pathspec-from-file'], [], 'reads paths from a file')] },
      clean: { formUnless: { words: ['-n', '--dry-run'], why: 'deletes untracked files, protected ones included' } },
      // Content from outside the repository's history, which can then be checked out over any file, protected ones too.
      ...gitSub({ form: 'writes objects, the index or refs from content the line supplies, which a checkout can then write over any file' },
        'update-index', 'update-ref', 'symbolic-ref', 'mktree', 'mktag', 'commit-tree', 'read-tree', 'unpack-objects',
        'replace', 'apply', 'am', 'clone', 'fast-import', 'merge-file'),
      commit: { options: [path('reads', ['--file', '--template', '--pathspec-from-file'], ['F', 't'], 'reads a message or path list file')] },
      ...gitSub({ options: [path('reads', ['--pathspec-from-file'], [], 'reads a path list file')] }, 'add', 'reset'),
      'interpret-trailers': { options: [runs('rewrites the files it is given', ['--in-place'], [], false)] },
      tag: { options: [path('reads', ['--file'], ['F'], 'reads a message file')] },
      notes: { options: [path('reads', ['--file'], ['F'], 'reads a message file')] },
      blame: { options: [path('reads', ['--contents'], [], 'reads a file'), path('reads', [], ['S'], 'reads a file')] },
      grep: {
        options: [
          runs('opens the matches in a program', ['--open-files-in-pager'], ['O']),
          runs('searches files anywhere on disk, outside the repository', ['--no-index'], [], false),
          path('reads', ['--file'], ['f'], 'reads patterns from a file'),
        ],
      },
      config: {
        formUnless: {
          words: ['--get', '--get-all', '--get-regexp', '--get-urlmatch', '--list', '-l', 'get', 'list', '--get-color', '--get-colorbool'],
          why: 'changes git configuration, which can run programs',
          operandsAtMost: 1,
        },
        options: [path('reads', ['--file', '--blob'], ['f'], 'reads a configuration file')],
      },
      fetch: { options: gitNetwork, operands: 'remote' },
      pull: { options: gitNetwork, operands: 'remote' },
      remote: { options: gitNetwork, formUnless: { words: ['-v', '--verbose', 'show', 'get-url'], why: 'changes where git fetches from' } },
      push: { options: gitNetwork, operands: 'remote' },
      'ls-remote': { options: gitNetwork, operands: 'remote' },
      init: { options: [runs('installs hooks from a template folder', ['--template']), path('folder', ['--separate-git-dir'], [], 'keeps the repository elsewhere')] },
      archive: { options: [...gitNetwork, runs('reads another repository', ['--remote']), path('writes', ['--output'], ['o'], 'writes an archive')] },
      bundle: { form: 'writes or reads a bundle file anywhere' },
      'format-patch': { options: [...gitDiffOptions, path('folder', ['--output-directory'], ['o'], 'writes patches into a folder'), path('reads', ['--signature-file'], [], 'reads a signature file')] },
      worktree: { form: 'creates or moves a working tree, possibly outside the workspace' },
      'checkout-index': { options: [runs('writes files under any prefix', ['--prefix'])] },
      'hash-object': { operands: 'reads', formIf: { words: ['-w', '--stdin', '--stdin-paths'], why: 'writes an object from content the line supplies' } },
      rebase: { options: [runs('runs a command after each commit', ['--exec'], ['x'])] },
      bisect: { formUnless: { words: ['start', 'good', 'bad', 'new', 'old', 'reset', 'log', 'skip', 'terms', 'visualize', 'view'], why: '`git bisect run` runs a program' } },
      submodule: { formUnless: { words: ['status', 'summary'], why: 'fetches or runs code in submodules (`foreach`)' } },
      help: { options: [runs('opens a browser or another program', ['--web', '--info', '--man'], ['w', 'i', 'm'], false)] },
      // Run programs or send data by design.
      ...gitSub({ form: 'runs other programs or sends data by design' }, 'filter-branch', 'difftool', 'mergetool', 'instaweb',
        'daemon', 'send-email', 'send-pack', 'credential', 'credential-store', 'credential-cache', 'gui', 'citool',
        'hook', 'maintenance', 'web--browse', 'upload-pack', 'receive-pack', 'fast-import', 'shell', 'imap-send', 'p4', 'svn', 'cvsimport', 'quiltimport'),
    },
    unknown: 'is not a git command, so it may be an alias, which can run any program',
  },
};

const npmSafeOptions = ['--silent', '-s', '--quiet', '-q', '--if-present', '--ignore-scripts', '--foreground-scripts',
  '--workspaces', '-ws', '--include-workspace-root', '--verbose', '--json', '--long', '-l', '--parseable', '-p',
  '--no-color', '--color', '--no-audit', '--no-fund', '--dry-run', '--save-dev', '-D', '--save', '-S', '--save-exact', '-E',
  '--no-save', '--prefer-offline', '--offline', '--omit', '--include', '--loglevel', '--production', '--legacy-peer-deps',
  '--workspace', '-w', '--all', '-a', '--depth'];
const npmWorkspace: OptionSpec[] = [path('folder', ['--workspace'], ['w'], 'runs in a workspace folder')];
const npmScript: CommandSpec = { operands: 'script', options: npmWorkspace, onlyOptions: npmSafeOptions, afterDoubleDash: 'passes arguments to the script, which can change what it runs' };
const npmFixed: CommandSpec = { operands: 'passed', options: npmWorkspace, onlyOptions: npmSafeOptions, afterDoubleDash: 'passes arguments to the script, which can change what it runs' };
const npmOther: CommandSpec = { options: npmWorkspace, onlyOptions: npmSafeOptions };
const npm: CommandSpec = {
  subcommands: {
    global: [
      runs('changes the project npm works on', ['--prefix'], ['C']),
      path('folder', ['--workspace'], ['w'], 'runs in a workspace folder'),
    ],
    neutral: ['--silent', '-s', '--quiet', '-q', '--no-color', '--loglevel', '--version', '-v', '--help', '-h'],
    known: {
      ...gitSub(npmScript, 'run', 'run-script', 'rum', 'urn'),
      ...gitSub(npmFixed, 'test', 't', 'tst', 'start', 'stop', 'restart'),
      ...gitSub(npmOther, 'install', 'i', 'ci', 'ls', 'list', 'outdated', 'view', 'info', 'show', 'why', 'explain', 'audit',
        'fund', 'version', 'uninstall', 'remove', 'rm', 'update', 'up', 'dedupe', 'prune', 'pack', 'doctor', 'help', 'search',
        'root', 'bin', 'prefix', 'query', 'sbom', 'add'),
      ...gitSub({ form: 'runs package code, changes configuration or publishes by design' }, 'exec', 'x', 'explore', 'edit',
        'config', 'c', 'set', 'get', 'publish', 'unpublish', 'adduser', 'login', 'logout', 'token', 'access', 'owner',
        'deprecate', 'dist-tag', 'hook', 'team', 'org', 'star', 'link', 'ln', 'init', 'create', 'rebuild', 'pkg'),
    },
    unknown: 'is not an npm command Toolgate knows',
  },
};

const makeOptions: OptionSpec[] = [
  path('reads', ['--file', '--makefile'], ['f'], 'reads another makefile'),
  path('folder', ['--directory'], ['C'], 'runs in another folder'),
  path('folder', ['--include-dir'], ['I'], 'includes makefiles from another folder'),
  runs('evaluates make code given on the command line', ['--eval'], ['E']),
];

const interpreterCode = (long: string[], short: string[]): CommandSpec => ({
  options: [runs('runs code given on the command line', long, short)],
  operands: 'reads',
  stdinCode: true,
});

const reader: CommandSpec = { operands: 'reads' };
const readers = ['cat', 'head', 'tail', 'less', 'more', 'ls', 'dir', 'wc', 'grep', 'egrep', 'fgrep', 'rg', 'ag', 'sort', 'uniq',
  'diff', 'cmp', 'comm', 'file', 'stat', 'du', 'tree', 'od', 'xxd', 'hexdump', 'strings', 'nl', 'tac', 'cut', 'paste',
  'base64', 'md5sum', 'sha1sum', 'sha256sum', 'sha512sum', 'cksum', 'jq', 'yq', 'bat', 'realpath', 'readlink', 'column',
  'fold', 'fmt', 'expand', 'unexpand', 'rev', 'look', 'zcat', 'zless', 'bzcat', 'xzcat', 'iconv', 'join'];

const loadsCode = 'loads a configuration or plugin, which is code';
const eslint: CommandSpec = {
  operands: 'reads',
  options: [
    runs(loadsCode, ['--config', '--plugin', '--rulesdir', '--resolve-plugins-relative-to', '--parser', '--format', '--flag'], ['c', 'f']),
    path('writes', ['--output-file', '--cache-location'], ['o'], 'writes a file'),
    runs('rewrites the files it checks', ['--fix', '--fix-type'], [], false),
  ],
};
const prettier: CommandSpec = {
  operands: 'reads',
  options: [
    runs(loadsCode, ['--config', '--plugin', '--config-precedence'], []),
    runs('rewrites the files it is given', ['--write'], ['w'], false),
    path('reads', ['--ignore-path'], [], 'reads an ignore file'),
  ],
};
const tsc: CommandSpec = {
  operands: 'reads',
  options: [
    path('reads', ['--project'], ['p'], 'compiles another project'),
    path('folder', ['--outDir', '--declarationDir', '--generateTrace'], [], 'writes into a folder'),
    path('writes', ['--outFile', '--tsBuildInfoFile'], [], 'writes a file'),
    runs('builds referenced projects, writing their output', ['--build'], ['b'], false),
  ],
};
const pytest: CommandSpec = {
  options: [
    runs(loadsCode, ['--config-file', '--override-ini', '--pyargs'], ['c', 'o', 'p']),
    path('touches', ['--basetemp'], [], 'deletes and recreates that folder'),
    path('folder', ['--rootdir', '--confcutdir'], [], 'reads configuration from another folder'),
    path('writes', ['--junit-xml', '--junitxml', '--result-log', '--resultlog', '--report-log'], [], 'writes a report file'),
  ],
};

/** The table. A command not listed has no forms: a rule that names it allows it with any arguments. */
export const commandTable: Readonly<Record<string, CommandSpec>> = {
  ...Object.fromEntries(readers.map((name) => [name, reader])),
  sort: { operands: 'reads', options: [path('writes', ['--output'], ['o'], 'writes its output to a file'), runs('runs a compression program', ['--compress-program'])] },
  uniq: { operands: 'readsThenWrites' },
  rg: {
    operands: 'reads',
    options: [runs('runs a program on every file it searches', ['--pre']), path('reads', ['--ignore-file'], [], 'reads an ignore file')],
  },
  tar: {
    options: [
      runs('runs a program', ['--checkpoint-action', '--to-command', '--use-compress-program', '--info-script', '--new-volume-script', '--rsh-command', '--rmt-command'], ['I', 'F']),
      path('folder', ['--directory'], ['C'], 'works in another folder'),
    ],
  },
  eslint,
  prettier,
  tsc,
  pytest,
  'py.test': pytest,
  find: { operands: 'reads' },
  tee: { operands: 'writes' },
  ...Object.fromEntries(['rm', 'rmdir', 'mv', 'cp', 'ln', 'install', 'touch', 'mkdir', 'truncate', 'unlink', 'shred'].map((name) => [name, { operands: 'touches' } satisfies CommandSpec])),
  git,
  npm,
  make: { options: makeOptions, assignments: 'overrides a make variable, which can inject commands into recipes' },
  gmake: { options: makeOptions, assignments: 'overrides a make variable, which can inject commands into recipes' },
  python: { ...interpreterCode([], ['c']), stdinUnless: ['-m', '-V', '--version', '-h', '--help'] },
  python3: { ...interpreterCode([], ['c']), stdinUnless: ['-m', '-V', '--version', '-h', '--help'] },
  node: {
    ...interpreterCode(['--eval', '--print', '--require', '--import', '--loader', '--experimental-loader', '--env-file', '--input-type'], ['e', 'p', 'r']),
    stdinUnless: ['--test', '-v', '--version', '-h', '--help', '--run'],
  },
  ruby: interpreterCode([], ['e', 'r']),
  perl: interpreterCode([], ['e', 'E', 'M', 'm']),
  php: interpreterCode([], ['r', 'B', 'R', 'E']),
  awk: { operands: 'program', options: [path('reads', ['--file'], ['f'], 'reads a program file')] },
  gawk: { operands: 'program', options: [path('reads', ['--file'], ['f'], 'reads a program file')] },
  mawk: { operands: 'program' },
  nawk: { operands: 'program' },
  sed: {
    operands: 'program',
    options: [runs('edits files in place', ['--in-place'], ['i'], false), runs('reads a script', ['--file', '--expression'], ['f', 'e'])],
  },
  echo: { anyArguments: true },
  printf: { anyArguments: true, formIf: { words: ['-v'], why: 'sets a shell variable, which can change later commands' } },
  true: { anyArguments: true },
  false: { anyArguments: true },
  basename: { anyArguments: true },
  dirname: { anyArguments: true },
  pwd: { anyArguments: true },
};

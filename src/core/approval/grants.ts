/**
 * Grants: what the person allowed beyond one call. Session grants live in memory (per chat); workspace grants are
 * stored in workspace state under a versioned zod schema. Only the person creates grants (through the panel or
 * settings); nothing here is reachable from the model, a tool result or a workspace file.
 */
import { randomUUID } from 'node:crypto';
import * as z from '../../zod';
import { globMatches } from './glob';
import type { KeyValueStore } from '../storage/keyValueStore';
import { agentCaller, callerLabel, grantCaller, isOutsideCaller } from '../callers';

export const GrantMatcher = z.discriminatedUnion('kind', [
  /** Exactly this call: the tool and its canonical arguments hash. */
  z.strictObject({ kind: z.literal('exact'), argsHash: z.string().check(z.regex(/^[0-9a-f]{64}$/)) }),
  /** This one file (workspace-relative, `/` separators). */
  z.strictObject({ kind: z.literal('path'), path: z.string().check(z.minLength(1)) }),
  /** Files matching a glob (workspace-relative). */
  z.strictObject({ kind: z.literal('glob'), glob: z.string().check(z.minLength(1)) }),
  /** Commands starting with these words. */
  z.strictObject({ kind: z.literal('command'), prefix: z.string().check(z.minLength(1)) }),
  /** Every call of the tool. */
  z.strictObject({ kind: z.literal('tool') }),
  /** Every tool of one MCP server (given explicitly by the person). */
  z.strictObject({ kind: z.literal('server'), server: z.string().check(z.minLength(1)) }),
]);
export type GrantMatcher = z.infer<typeof GrantMatcher>;

/**
 * `session`: this chat, until the window closes; `workspace`: always, stored; `task`: the agent's current task only;
 * `timed`: this chat until `expiresAt`. Task and timed grants end by themselves: checked at decision time against the
 * gate's clock, never by a timer that could be missed.
 */
export const GrantScope = z.enum(['session', 'workspace', 'task', 'timed']);
export type GrantScope = z.infer<typeof GrantScope>;

export const Grant = z.strictObject({
  id: z.string().check(z.minLength(1), z.maxLength(64)),
  tool: z.string().check(z.minLength(1)),
  matcher: GrantMatcher,
  scope: GrantScope,
  createdAt: z.string(),
  /** For MCP tools: the hash of name+description+schema the grant was made against. */
  definitionHash: z.optional(z.string()),
  /** Scope `task`: the task it was given in. */
  taskId: z.optional(z.string()),
  /** Scope `timed`: when it ends (ISO time). */
  expiresAt: z.optional(z.string()),
  /**
   * The one caller it covers (`grantCaller` of the source it was given on). Absent on grants made before callers
   * were recorded: those cover Toolgate's agent and the API, the only callers there were, never an outside agent.
   */
  caller: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
});
export type Grant = z.infer<typeof Grant>;

/** The grants that cover calls of a caller: only those given to it (see `Grant.caller`). On every call: the caller is worked out once. */
function grantsForCaller(grants: readonly Grant[], source: string): Grant[] {
  const caller = grantCaller(source);
  const outside = isOutsideCaller(source);
  return grants.filter((grant) => (grant.caller === undefined ? !outside : grant.caller === caller));
}

/** Minutes a "for the next N minutes" grant may last (the scope menu's choice, checked again by the host). */
export const grantMinutes = { default: 15, min: 1, max: 24 * 60 } as const;

/** When a grant applies: the gate's clock and the agent's task the call belongs to (none for the API). */
export interface GrantMoment {
  now: Date;
  taskId?: string | undefined;
}

/** Whether a grant is in force at this moment: a task grant in its task, a timed grant before it ends. */
export function grantInForce(grant: Grant, moment: GrantMoment): boolean {
  if (grant.scope === 'task') {
    return grant.taskId !== undefined && grant.taskId === moment.taskId;
  }
  if (grant.scope === 'timed') {
    const ends = grant.expiresAt === undefined ? Number.NaN : Date.parse(grant.expiresAt);
    return Number.isFinite(ends) && moment.now.getTime() < ends;
  }
  return true;
}

export const WorkspaceGrantsState = z.strictObject({
  version: z.literal(1),
  /** Incremented on every change, so the newest of several stored copies wins. */
  revision: z.optional(z.int().check(z.nonnegative())),
  grants: z.array(Grant),
});
export type WorkspaceGrantsState = z.infer<typeof WorkspaceGrantsState>;

export const workspaceGrantsKey = 'toolgate.grants';

/** The slice of a key-value store (VS Code's workspaceState) the grant store needs. */
export function describeMatcher(tool: string, matcher: GrantMatcher): string {
  switch (matcher.kind) {
    case 'exact':
      return `${tool}: this exact call`;
    case 'path':
      return `${tool}: ${matcher.path}`;
    case 'glob':
      return `${tool}: files matching ${matcher.glob}`;
    case 'command':
      return `${tool}: commands starting with \`${matcher.prefix}\``;
    case 'tool':
      return `${tool}: every call`;
    case 'server':
      return `every tool of the MCP server ${matcher.server}`;
  }
}

export function describeGrant(grant: Grant): string {
  const scope =
    grant.scope === 'task' ? 'task' : grant.scope === 'timed' ? `timed (until ${grant.expiresAt?.slice(11, 16) ?? '?'} UTC)` : grant.scope;
  return `${scope} grant for ${describeMatcher(grant.tool, grant.matcher)}${grant.caller !== undefined && grant.caller !== agentCaller ? ` (for ${callerLabel(grant.caller)} only)` : ''}`;
}

export interface GrantSubject {
  tool: string;
  argsHash: string;
  /** Workspace-relative path of the file the call writes, when inside a workspace root. */
  relativePath?: string;
  /** For MCP tools: the current definition hash; grants made against another definition do not apply. */
  definitionHash?: string;
  /** For MCP tools: the server's name. */
  mcpServer?: string;
}

/** The tools a file grant covers alike (made once: judge() asks this of every grant for every call). */
const fileWrites: ReadonlySet<string> = new Set(['write_file', 'edit_file']);

export function grantMatches(grant: Grant, subject: GrantSubject): boolean {
  if (grant.matcher.kind === 'server') {
    // A server-wide grant covers the server's tools; their definitions are not pinned one by one.
    return subject.mcpServer !== undefined && grant.matcher.server === subject.mcpServer;
  }
  // A grant for one file (or glob) covers writing and editing it alike: an edit can make any content a write can.
  if (grant.tool !== subject.tool && !((grant.matcher.kind === 'path' || grant.matcher.kind === 'glob') && fileWrites.has(grant.tool) && fileWrites.has(subject.tool))) {
    return false;
  }
  if (grant.definitionHash !== undefined && grant.definitionHash !== subject.definitionHash) {
    return false;
  }
  const matcher = grant.matcher;
  switch (matcher.kind) {
    case 'exact':
      return matcher.argsHash === subject.argsHash;
    case 'path':
      return subject.relativePath !== undefined && subject.relativePath === matcher.path;
    case 'glob':
      return subject.relativePath !== undefined && globMatches(matcher.glob, subject.relativePath);
    case 'command':
      // Applied per sub-command by the shell rules (decideCommand), never to a whole command line here.
      return false;
    case 'tool':
      return true;
  }
}

/** Reads workspace grants; anything unreadable or foreign is ignored with a warning, never treated as a grant. */
export function readWorkspaceGrants(raw: unknown): { grants: Grant[]; revision: number; warning?: string } {
  if (raw === undefined) {
    return { grants: [], revision: 0 };
  }
  const parsed = WorkspaceGrantsState.safeParse(raw);
  if (!parsed.success) {
    const detail = parsed.error.issues[0];
    return {
      grants: [],
      revision: 0,
      warning: `ignored the stored workspace grants: they do not fit the expected format (${
        detail ? `${detail.path.join('.') || '(root)'}: ${detail.message}` : 'unknown'
      }); every call asks until the person grants again`,
    };
  }
  return {
    grants: parsed.data.grants.filter((grant) => grant.scope === 'workspace'),
    revision: parsed.data.revision ?? 0,
  };
}

export function newGrantId(): string {
  return `g-${randomUUID()}`;
}

/** Session grants (memory, per chat) and workspace grants (a KeyValueStore) behind one interface. */
export class GrantStore {
  private session = new Map<string, Grant[]>();
  private workspace: Grant[] = [];
  private revision = 0;
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly store: KeyValueStore,
    private readonly warn: (message: string) => void,
  ) {
    this.reload();
  }

  /** Re-reads workspace grants from the store (for example after another window changed them). */
  reload(): void {
    const { grants, revision, warning } = readWorkspaceGrants(this.store.get(workspaceGrantsKey));
    if (warning !== undefined) {
      this.warn(warning);
    }
    this.workspace = grants;
    this.revision = revision;
  }

  onDidChange(listener: () => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  private changed(): void {
    for (const listener of [...this.listeners]) {
      listener();
    }
  }

  /**
   * The grants that apply to a caller's call in a chat at a moment: its session grants, its task grants for that task,
   * its timed grants that have not ended, and the workspace's; each only if given to that caller.
   */
  active(chatId: string, moment: GrantMoment, source: string): Grant[] {
    const session = this.session.get(chatId);
    // Without session grants in the chat (most of a task's calls), the workspace's alone: no list made to join them.
    const candidates = session === undefined || session.length === 0 ? this.workspace : [...session.filter((grant) => grantInForce(grant, moment)), ...this.workspace];
    return grantsForCaller(candidates, source);
  }

  workspaceGrants(): readonly Grant[] {
    return this.workspace;
  }

  sessionGrants(chatId: string): readonly Grant[] {
    return this.session.get(chatId) ?? [];
  }

  async add(grant: Grant, chatId: string): Promise<void> {
    const checked = Grant.parse(grant);
    if (checked.scope !== 'workspace') {
      this.session.set(chatId, [...(this.session.get(chatId) ?? []), checked]);
    } else {
      this.workspace = [...this.workspace, checked];
      await this.persist();
    }
    this.changed();
  }

  async revoke(id: string): Promise<boolean> {
    let found = false;
    for (const [chatId, grants] of this.session) {
      const kept = grants.filter((grant) => grant.id !== id);
      if (kept.length !== grants.length) {
        found = true;
        this.session.set(chatId, kept);
      }
    }
    const kept = this.workspace.filter((grant) => grant.id !== id);
    if (kept.length !== this.workspace.length) {
      found = true;
      this.workspace = kept;
      await this.persist();
    }
    if (found) {
      this.changed();
    }
    return found;
  }

  async resetWorkspace(): Promise<number> {
    const count = this.workspace.length;
    this.workspace = [];
    await this.persist();
    this.changed();
    return count;
  }

  endSession(chatId: string): void {
    if (this.session.delete(chatId)) {
      this.changed();
    }
  }

  private async persist(): Promise<void> {
    this.revision += 1;
    const state: WorkspaceGrantsState = { version: 1, revision: this.revision, grants: this.workspace };
    await this.store.update(workspaceGrantsKey, state);
  }
}

/**
 * The MCP endpoint's identity for a workspace: its port and its secret, kept so that a config a client saved (Claude
 * Code's ~/.claude.json, Cline's and Roo's settings files) keeps working across window reloads and restarts.
 *
 * The port is chosen once (at random below the systems' ephemeral ranges, so a program that asks the system for any
 * port never gets it) and kept in workspace state; another is chosen only when it is taken, and then the move is said.
 * The secret lives in SecretStorage under a key of this workspace's own (a random id kept with the port), never in
 * workspace state. A stored value that does not parse is replaced by a fresh one, with a note saying so.
 */
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import * as z from '../../zod';
import type { KeyValueStore } from '../storage/keyValueStore';
import { endpointStateKey } from './keptEndpoint';

/** The lowest and highest port chosen at random: above common dev servers' and below every system's ephemeral range. */
export const choosablePorts = { low: 20_000, high: 32_767 } as const;

const port = z.int().check(z.gte(1), z.lte(65_535));

/** The record in workspace state (the secret is not in it: only the id of its SecretStorage key). */
const EndpointState = z.object({
  /** The port the endpoint listens on in this workspace. */
  port,
  /** This workspace's part of the secret's SecretStorage key. */
  key: z.string().check(z.regex(/^[A-Za-z0-9-]{8,64}$/)),
  /** The port of the last config copied for a client, so a later move can be said. */
  copiedPort: z.optional(port),
  /** Raised on every write, so the mirrored copy with the newest record wins (src/core/storage/mirroredState.ts). */
  revision: z.int().check(z.nonnegative()),
});
export type EndpointState = z.infer<typeof EndpointState>;

/** 32 random bytes, base64url. */
const Secret = z.string().check(z.regex(/^[A-Za-z0-9_-]{43}$/));

/** What the identity is kept in: workspace state (a key-value store) and SecretStorage. */
export interface EndpointIdentityStore {
  state: KeyValueStore;
  secrets: {
    get(key: string): PromiseLike<string | undefined>;
    store(key: string, value: string): PromiseLike<void>;
  };
}

/** Why a stored value was not used, or that the port moved: typed, rendered once for the log (`noteText`). */
export type IdentityNote =
  | { kind: 'state-malformed'; problem: string }
  | { kind: 'secret-missing' }
  | { kind: 'secret-malformed' }
  | { kind: 'port-taken'; from: number; to: number };

export function noteText(note: IdentityNote): string {
  switch (note.kind) {
    case 'state-malformed':
      return `the stored port and secret id of the MCP endpoint did not parse (${note.problem}): a new port and secret are chosen, and configs copied before must be copied again`;
    case 'secret-missing':
      return "the MCP endpoint's secret was not in SecretStorage: a new one is made, and configs copied before must be copied again";
    case 'secret-malformed':
      return "the MCP endpoint's stored secret did not parse: a new one is made, and configs copied before must be copied again";
    case 'port-taken':
      return `the MCP endpoint's port ${note.from} is taken by another program: it listens on ${note.to} now, and configs copied before must be copied again`;
  }
}

/** The SecretStorage key of a workspace's secret. */
export function secretKey(key: string): string {
  return `toolgate.mcpEndpoint.secret.${key}`;
}

/** What the stored values give, before a port is listened on. */
export interface StoredIdentity {
  /** The port to listen on first (undefined: none kept yet, choose one). */
  port: number | undefined;
  key: string;
  secret: string;
  copiedPort: number | undefined;
  revision: number;
  /** The secret is new and must be stored. */
  newSecret: boolean;
  notes: IdentityNote[];
}

export interface Fresh {
  key(): string;
  secret(): string;
}

export const freshValues: Fresh = {
  key: () => randomUUID(),
  secret: () => randomBytes(32).toString('base64url'),
};

/**
 * Reads the kept identity: the stored record and secret when they parse, fresh ones (with a note) when they do not. No
 * record at all is a first start: fresh values, no note.
 */
export async function readIdentity(store: EndpointIdentityStore, fresh: Fresh = freshValues): Promise<StoredIdentity> {
  const raw = store.state.get(endpointStateKey);
  const notes: IdentityNote[] = [];
  let state: EndpointState | undefined;
  if (raw !== undefined) {
    const parsed = EndpointState.safeParse(raw);
    if (parsed.success) {
      state = parsed.data;
    } else {
      notes.push({ kind: 'state-malformed', problem: parsed.error.issues.map((issue) => `${issue.path.join('.') || 'record'}: ${issue.message}`).join('; ') });
    }
  }
  if (state === undefined) {
    return { port: undefined, key: fresh.key(), secret: fresh.secret(), copiedPort: undefined, revision: revisionOf(raw), newSecret: true, notes };
  }
  const storedSecret = await store.secrets.get(secretKey(state.key));
  const secret = Secret.safeParse(storedSecret);
  if (!secret.success) {
    notes.push({ kind: storedSecret === undefined ? 'secret-missing' : 'secret-malformed' });
  }
  return {
    port: state.port,
    key: state.key,
    secret: secret.success ? secret.data : fresh.secret(),
    copiedPort: state.copiedPort,
    revision: state.revision,
    newSecret: !secret.success,
    notes,
  };
}

/** The revision of a record that did not parse, so the fresh one written over it wins in the mirror too. */
function revisionOf(raw: unknown): number {
  const revision = z.object({ revision: z.number() }).safeParse(raw);
  return revision.success && Number.isFinite(revision.data.revision) ? Math.max(0, Math.floor(revision.data.revision)) : 0;
}

/** The ports to try, in order: the kept one, else random ones in `choosablePorts`; the system's pick (0) last. */
export function portsToTry(kept: number | undefined, random: () => number = () => randomInt(choosablePorts.low, choosablePorts.high + 1)): number[] {
  return [...(kept === undefined ? [] : [kept]), ...Array.from({ length: 8 }, random), 0];
}

/** What is written back once the endpoint listens on `listening`, and the note when that is not the kept port. */
export function settleIdentity(stored: StoredIdentity, listening: number): { state: EndpointState; note?: IdentityNote } {
  const state: EndpointState = {
    port: listening,
    key: stored.key,
    ...(stored.copiedPort === undefined ? {} : { copiedPort: stored.copiedPort }),
    revision: stored.revision + 1,
  };
  return stored.port !== undefined && stored.port !== listening ? { state, note: { kind: 'port-taken', from: stored.port, to: listening } } : { state };
}

/** Stores what `settleIdentity` gave (the secret first, so a record never names a key whose secret is not stored). */
export async function writeIdentity(store: EndpointIdentityStore, stored: StoredIdentity, state: EndpointState): Promise<void> {
  if (stored.newSecret) {
    await store.secrets.store(secretKey(state.key), stored.secret);
  }
  await store.state.update(endpointStateKey, state);
}

/** What the copy command says about the port: unchanged since the last copy, or moved from the port the client has. */
export function copiedPortChange(state: EndpointState): { from: number; to: number } | undefined {
  return state.copiedPort !== undefined && state.copiedPort !== state.port ? { from: state.copiedPort, to: state.port } : undefined;
}

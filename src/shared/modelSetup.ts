/**
 * The chat's model setup: the providers it offers, what the host shows of it (`ModelSetupView`), and what the form
 * asks of the host (`ModelSetupMessage`). A provider is only a way to fill the form: the settings stay
 * `toolgate.model.provider` (an OpenAI-compatible endpoint or VS Code's language models), `baseUrl` and `name`.
 * The API key never crosses this boundary: the host asks for it in VS Code's own password box. The providers and the
 * address rules, which need no schema, are in modelProviders.ts.
 */
import * as z from '../zod';
import { checkKinds, providerIds, type ProviderId as Provider } from './modelProviders';

export const ProviderId = z.enum(providerIds);
export type ProviderId = Provider;

/** One line of Test connection: what was checked, how it went, and what to do when it did not. */
export const ConnectionCheck = z.strictObject({
  kind: z.enum(checkKinds),
  result: z.enum(['pass', 'warn', 'fail', 'skip']),
  text: z.string().check(z.maxLength(2000)),
});
export type ConnectionCheck = z.infer<typeof ConnectionCheck>;

/** What the chat shows of the setup: the stored key's address (never the key), the models loaded, the test's lines. */
export const ModelSetupView = z.strictObject({
  /** The origin a stored key is sent to (only there); absent when no key is stored. */
  keyFor: z.optional(z.string().check(z.maxLength(2048))),
  /** The endpoint's models, for the address the form named: loading, loaded or why they could not be. */
  models: z.optional(z.strictObject({
    baseUrl: z.string().check(z.maxLength(2048)),
    status: z.enum(['loading', 'loaded', 'failed']),
    ids: z.array(z.string().check(z.maxLength(256))).check(z.maxLength(2000)),
    error: z.optional(z.string().check(z.maxLength(2000))),
  })),
  /** The last Test connection: for which address and model, whether it still runs, and its lines so far. */
  test: z.optional(z.strictObject({
    /** Counts the tests of this window: a view (and a test driving it) tells a new result from the last one. */
    id: z.int().check(z.nonnegative()),
    baseUrl: z.string().check(z.maxLength(2048)),
    model: z.string().check(z.maxLength(256)),
    running: z.boolean(),
    checks: z.array(ConnectionCheck).check(z.maxLength(8)),
  })),
  /** What the last Save did (where it wrote), or why it did not. */
  saved: z.optional(z.strictObject({ ok: z.boolean(), text: z.string().check(z.maxLength(2000)) })),
});
export type ModelSetupView = z.infer<typeof ModelSetupView>;

/**
 * What the form asks: the models of an address, a Test connection, Save, or the API key for an address (asked by
 * the host in VS Code's password box). The values are as typed: the host checks them and says what is wrong.
 */
export const ModelSetupMessage = z.strictObject({
  type: z.literal('modelSetup'),
  requestId: z.string().check(z.minLength(1), z.maxLength(64), z.regex(/^[A-Za-z0-9_-]+$/)),
  action: z.enum(['models', 'test', 'save', 'key']),
  provider: ProviderId,
  baseUrl: z.string().check(z.maxLength(2048)),
  model: z.string().check(z.maxLength(256)),
});
export type ModelSetupMessage = z.infer<typeof ModelSetupMessage>;

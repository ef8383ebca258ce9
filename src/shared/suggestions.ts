/**
 * The suggestions view's part of the host <-> webview contract. The view shows what the host computed from the audit
 * log; accepting names a suggestion by id only: the host recomputes the suggestions and applies the one with that id,
 * so nothing the webview sends can choose a rule's text.
 */
import * as z from '../zod';

const Probe = z.strictObject({
  text: z.string(),
  why: z.string(),
  verdict: z.enum(['allow', 'ask', 'deny']),
  reason: z.string(),
});

/** A group of past decisions: what a rule would match, how often it asked, was allowed or denied, how long you looked. */
export const DecisionGroupView = z.strictObject({
  id: z.string().check(z.minLength(1), z.maxLength(700)),
  kind: z.enum(['command', 'edits', 'mcp']),
  matcher: z.string(),
  asked: z.int().check(z.nonnegative()),
  allowed: z.int().check(z.nonnegative()),
  denied: z.int().check(z.nonnegative()),
  medianLookMs: z.optional(z.number().check(z.nonnegative())),
  /** A group with no suggestion: why (mixed decisions, too few, already a rule…). */
  why: z.optional(z.string()),
});
export type DecisionGroupView = z.infer<typeof DecisionGroupView>;

/** A proposal for one group (its id: the group's and the value), with what it would and would not allow. */
export const SuggestionView = z.extend(DecisionGroupView, {
  /** `true`: loosens (allow without asking); `false`: a rule that always asks. */
  allows: z.boolean(),
  summary: z.string(),
  past: z.array(Probe),
  dangerous: z.array(Probe),
  warnings: z.array(z.string()),
});
export type SuggestionView = z.infer<typeof SuggestionView>;

export const SuggestionsState = z.strictObject({
  view: z.literal('suggestions'),
  /** How many times a group must have been decided the same way. */
  minDecisions: z.int().check(z.positive()),
  /** Untrusted: VS Code ignores the workspace's rule settings, so nothing is suggested. */
  trusted: z.boolean(),
  suggestions: z.array(SuggestionView),
  groups: z.array(DecisionGroupView),
  /** What the last accept did, in words. */
  done: z.optional(z.string()),
});
export type SuggestionsState = z.infer<typeof SuggestionsState>;

export const AcceptSuggestionMessage = z.strictObject({
  type: z.literal('acceptSuggestion'),
  requestId: z.string().check(z.minLength(1), z.maxLength(64), z.regex(/^[A-Za-z0-9_-]+$/)),
  suggestionId: z.string().check(z.minLength(1), z.maxLength(700)),
});
export type AcceptSuggestionMessage = z.infer<typeof AcceptSuggestionMessage>;

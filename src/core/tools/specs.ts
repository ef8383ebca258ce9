/** The built-in tools described to the model, from their zod schemas (one source of truth for parse and prompt). */
import * as z from 'zod';
import type { ToolSpec } from '../llm/client';
import { builtinTools, toolParams, type BuiltinToolName } from '../toolDefinitions';

/** Each tool's spec, converted once: the schemas never change, and the agent asks for the specs before every turn. */
const specs = new Map<BuiltinToolName, ToolSpec>();

function specOf(name: BuiltinToolName): ToolSpec {
  let spec = specs.get(name);
  if (!spec) {
    const schema = z.toJSONSchema(toolParams[name]) as Record<string, unknown>;
    delete schema['$schema'];
    spec = { name, description: builtinTools[name].description, parameters: schema };
    specs.set(name, spec);
  }
  return spec;
}

/** The specs, as copies: a caller may change what it gets without changing what the next caller sees. */
export function builtinToolSpecs(names: readonly BuiltinToolName[] = Object.keys(toolParams) as BuiltinToolName[]): ToolSpec[] {
  return names.map((name) => structuredClone(specOf(name)));
}

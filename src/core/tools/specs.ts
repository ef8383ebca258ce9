/** The built-in tools described to the model, from their zod schemas (one source of truth for parse and prompt). */
import * as z from '../../zod';
import { deepFreeze } from '../deepFreeze';
import type { ToolSpec } from '../llm/client';
import { builtinTools, toolParams, type BuiltinToolName } from '../toolDefinitions';

/**
 * Each tool's spec, converted once and frozen to the last nested schema: the schemas never change, and the agent asks
 * for the specs before every turn (copying them each time was a tenth of its own time per tool round trip). A caller
 * that tries to change a shared spec changes nothing the next caller sees (strict code throws).
 */
const specs = new Map<BuiltinToolName, ToolSpec>();

function specOf(name: BuiltinToolName): ToolSpec {
  let spec = specs.get(name);
  if (!spec) {
    const schema = z.toJSONSchema(toolParams[name]) as Record<string, unknown>;
    delete schema['$schema'];
    spec = deepFreeze({ name, description: builtinTools[name].description, parameters: schema });
    specs.set(name, spec);
  }
  return spec;
}

/** The specs, shared and frozen (a new array each call, the specs in it the same objects). */
export function builtinToolSpecs(names: readonly BuiltinToolName[] = Object.keys(toolParams) as BuiltinToolName[]): ToolSpec[] {
  return names.map(specOf);
}

/** The built-in tools described to the model, from their zod schemas (one source of truth for parse and prompt). */
import * as z from 'zod';
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

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) {
      deepFreeze(inner);
    }
    Object.freeze(value);
  }
  return value;
}

/** The specs, shared and frozen (a new array each call, the specs in it the same objects). */
export function builtinToolSpecs(names: readonly BuiltinToolName[] = Object.keys(toolParams) as BuiltinToolName[]): ToolSpec[] {
  return names.map(specOf);
}

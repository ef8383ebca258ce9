/** The built-in tools described to the model, from their zod schemas (one source of truth for parse and prompt). */
import * as z from 'zod';
import type { ToolSpec } from '../llm/client';
import { builtinTools, toolParams, type BuiltinToolName } from './definitions';

export function builtinToolSpecs(names: readonly BuiltinToolName[] = Object.keys(toolParams) as BuiltinToolName[]): ToolSpec[] {
  return names.map((name) => {
    const schema = z.toJSONSchema(toolParams[name]) as Record<string, unknown>;
    delete schema['$schema'];
    return { name, description: builtinTools[name].description, parameters: schema };
  });
}

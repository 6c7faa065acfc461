/**
 * Attribute values against their definitions: every name must be defined and every value must have the
 * defined type. Used for tenant attributes here and user attributes by the users group.
 */
import { invalid } from '../errors.js';
import type { Attribute } from '../schemas/definitions.js';

/** A real calendar date in YYYY-MM-DD form (2025-02-30 is not). */
export function isIsoDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // setUTCFullYear, unlike Date.UTC, does not turn years 0-99 into 1900-1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/**
 * Numbers are kept exactly as given, so they must lie within ±(2^53 − 1), where JavaScript holds every
 * integer exactly, and, but for 0 itself, no closer to zero than 1e-130, the smallest magnitude DynamoDB stores.
 */
function isStorableNumber(value: number): boolean {
  const magnitude = Math.abs(value);
  return Number.isFinite(value) && magnitude <= Number.MAX_SAFE_INTEGER && (value === 0 || magnitude >= 1e-130);
}

function matchesType(type: Attribute['attribute_type'], value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && isStorableNumber(value);
    case 'bool':
      return typeof value === 'boolean';
    case 'date':
      return typeof value === 'string' && isIsoDate(value);
  }
}

const EXPECTED: Record<Attribute['attribute_type'], string> = {
  string: 'a string',
  number: 'a number within ±9007199254740991 (and 0 or at least 1e-130 from it)',
  bool: 'true or false',
  date: 'a real date in YYYY-MM-DD form',
};

export function checkAttributeValues(
  values: Record<string, unknown>,
  definitions: readonly Attribute[],
  kindLabel: string,
  field = 'attributes',
): void {
  const byName = new Map(definitions.map((d) => [d.attribute_name, d]));
  for (const [name, value] of Object.entries(values)) {
    const definition = byName.get(name);
    if (!definition) {
      throw invalid('invalid_attribute', `${field}.${name}: no ${kindLabel} named '${name}' is defined`, { field: `${field}.${name}` });
    }
    if (!matchesType(definition.attribute_type, value)) {
      throw invalid('invalid_attribute', `${field}.${name}: must be ${EXPECTED[definition.attribute_type]}`, {
        field: `${field}.${name}`,
      });
    }
  }
}

/** A user's security activity as attributes of the profile item (keys.activityAttribute, shared/domain/users/activity.ts). */
import type { ActivityChange, ActivityEvent } from '../domain/users/activity.js';
import { activityAttribute, activityEventId } from './keys.js';
import type { Update } from './update.js';

type StoredEvent = Omit<ActivityEvent, 'id'>;

/**
 * An event as its attribute holds it: its JSON text, one string, not a map. Every profile read and write carries
 * up to 20 events, and as maps they were most of the profile's work: DynamoDB Local took 0.11 ms longer to read
 * and 0.12 ms longer to update a profile whose 20 events were maps than one whose events were strings, and its
 * answer cost 0.05 ms more CPU to unmarshal (docs/proof.md). Events written as maps before are read as they are.
 */
export const eventText = (event: StoredEvent): string => JSON.stringify(event);

/** An event attribute's value (its JSON text, or a map written before): undefined when it is neither. */
export function eventOf(value: unknown): StoredEvent | undefined {
  let event = value;
  if (typeof value === 'string') {
    try {
      event = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  return event !== null && typeof event === 'object' && !Array.isArray(event) ? (event as StoredEvent) : undefined;
}

/** Adds the change's event to `update` and removes the ones it drops: top-level attributes, so no path overlaps another. */
export function withActivity(update: Update, change: ActivityChange | undefined): Update {
  if (!change) return update;
  const { id, ...event } = change.add;
  update.set(activityAttribute(id), eventText(event));
  for (const dropped of change.drop) update.remove(activityAttribute(dropped));
  return update;
}

/** The events a profile item holds, and the item without them. */
export function splitActivity(item: Record<string, unknown>): { activity: ActivityEvent[]; rest: Record<string, unknown> } {
  const activity: ActivityEvent[] = [];
  const rest: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(item)) {
    const id = activityEventId(name);
    const event = id === undefined ? undefined : eventOf(value);
    if (id === undefined) rest[name] = value;
    else if (event) activity.push({ ...event, id });
  }
  return { activity, rest };
}

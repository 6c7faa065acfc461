/** A user's security activity as attributes of the profile item (keys.activityAttribute, shared/domain/users/activity.ts). */
import type { ActivityChange, ActivityEvent } from '../domain/users/activity.js';
import { activityAttribute, activityEventId } from './keys.js';
import type { Update } from './update.js';

/** Adds the change's event to `update` and removes the ones it drops: top-level attributes, so no path overlaps another. */
export function withActivity(update: Update, change: ActivityChange | undefined): Update {
  if (!change) return update;
  const { id, ...event } = change.add;
  update.set(activityAttribute(id), event);
  for (const dropped of change.drop) update.remove(activityAttribute(dropped));
  return update;
}

/** The events a profile item holds, and the item without them. */
export function splitActivity(item: Record<string, unknown>): { activity: ActivityEvent[]; rest: Record<string, unknown> } {
  const activity: ActivityEvent[] = [];
  const rest: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(item)) {
    const id = activityEventId(name);
    if (id === undefined) rest[name] = value;
    else activity.push({ ...(value as Omit<ActivityEvent, 'id'>), id });
  }
  return { activity, rest };
}

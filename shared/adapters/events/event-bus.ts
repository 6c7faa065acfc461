/**
 * Where events go on EventBridge (shared/domain/integration/event-delivery.ts, EventBusPort): on AWS, PutEvents to
 * the bus the SaaS named, by ARN, through a client in that bus's region (PutEvents takes a bus of its own region
 * only); under `npm start` and in the tests, a stand-in that keeps what it was given, for the tests to read and the
 * console to show.
 */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { BusEntry, EventBusPort } from '../../domain/integration/event-delivery.js';
import { traced } from '../../observability.js';

const clients = new Map<string, EventBridgeClient>();
const regionOf = (busArn: string) => busArn.split(':')[3] ?? '';

export class AwsEventBus implements EventBusPort {
  async put(busArn: string, entries: readonly BusEntry[]): Promise<string[]> {
    const region = regionOf(busArn);
    let client = clients.get(region);
    // One attempt per call: the deliverer counts, spaces and records every attempt.
    if (!client) clients.set(region, (client = traced(new EventBridgeClient({ region, maxAttempts: 1 }))));
    const out = await client.send(
      new PutEventsCommand({
        Entries: entries.map((e) => ({ EventBusName: busArn, Source: e.source, DetailType: e.detailType, Detail: e.detail, Time: new Date(e.time) })),
      }),
    );
    return entries.map((_, i) => {
      const result = out.Entries?.[i];
      return result?.ErrorCode ? `${result.ErrorCode}: ${result.ErrorMessage ?? ''}` : '';
    });
  }
}

/** An entry as EventBridge would hand it to a rule's target: the envelope around what was put. */
export interface ReceivedEvent {
  version: '0';
  id: string;
  'detail-type': string;
  source: string;
  account: string;
  time: string;
  region: string;
  resources: string[];
  detail: unknown;
}

const KEPT = 500;

/**
 * The local bus: keeps the newest KEPT entries in this process, in EventBridge's envelope. A bus id can be made to
 * refuse (`refuse`), so a test can show a destination down and coming back.
 */
export class LocalEventBus implements EventBusPort {
  private readonly received: { busArn: string; event: ReceivedEvent }[] = [];
  private readonly refusing = new Set<string>();

  async put(busArn: string, entries: readonly BusEntry[]): Promise<string[]> {
    if (this.refusing.has(busArn)) return entries.map(() => 'InternalFailure: the local bus is refusing (a test said so)');
    const [, , , region = '', account = ''] = busArn.split(':');
    for (const entry of entries) {
      this.received.push({
        busArn,
        event: {
          version: '0',
          id: crypto.randomUUID(),
          'detail-type': entry.detailType,
          source: entry.source,
          account,
          time: new Date(Math.floor(entry.time / 1000) * 1000).toISOString().replace('.000Z', 'Z'),
          region,
          resources: [],
          detail: JSON.parse(entry.detail) as unknown,
        },
      });
    }
    this.received.splice(0, Math.max(0, this.received.length - KEPT));
    return entries.map(() => '');
  }

  /** What reached a bus, oldest first. */
  events(busArn: string): ReceivedEvent[] {
    return this.received.filter((r) => r.busArn === busArn).map((r) => r.event);
  }

  refuse(busArn: string, on: boolean): void {
    if (on) this.refusing.add(busArn);
    else this.refusing.delete(busArn);
  }
}

/**
 * What every API function's entry (functions/<group>/handler.ts) is made with: the wiring's request pipeline
 * (shared/wiring/pipeline.ts) with its UnmatchedPage port filled, here once, by the login screen's "page not found"
 * (web/login/unmatched-page.ts). Any function may be brought an address no operation answers (its greedy routes,
 * `$default`; docs/decisions.md, decision 17), so every one answers a browser's navigation to it with that page.
 * The wiring may not import web/, and the entries stay a list of operations: this file alone brings the page in
 * (layers.js, row "function pipeline").
 */
import type { Group } from '../shared/routes.js';
import type { BoundOperation } from '../shared/schemas/operation.js';
import { groupHandler as wiredGroupHandler } from '../shared/wiring.js';
import { unmatchedPage } from '../web/login/unmatched-page.js';

export const groupHandler = (group: Group, operations: Record<string, BoundOperation>) => wiredGroupHandler(group, unmatchedPage, operations);

/**
 * The API's request pipeline for each function group: the API keys of this store, the limits, the API log's
 * recorder and the page for unknown addresses. What belongs here: what every function group's handler is made with.
 */
import { config } from '../config.js';
import { createGroupHandler, type PipelineSettings, type UnmatchedPage } from '../http/pipeline.js';
import type { Group } from '../routes.js';
import type { BoundOperation } from '../schemas/operation.js';
import { findActiveApiKey } from '../domain/accounts/accounts.js';
import { recordApiCall } from './api-log.js';
import { secretBox } from './clients.js';
import { accountRepository } from './repositories.js';

/**
 * A function group's handler: the request pipeline, with the API keys of this store; `unmatchedPage` for a
 * browser opening an address no operation answers, which every group's function may be brought (its greedy routes,
 * `$default`; docs/decisions.md, decision 17), so that every function answers it alike.
 */
export const groupHandler = (group: Group, unmatchedPage: UnmatchedPage, operations: Record<string, BoundOperation>) =>
  createGroupHandler(
    group,
    operations,
    (saasId, apiKey) => findActiveApiKey(accountRepository(), secretBox(), saasId, apiKey),
    pipelineSettings(),
    recordApiCall,
    unmatchedPage,
  );

/** The request pipeline's limits, read when a function's handler is made (once per cold start). */
export const pipelineSettings = (): PipelineSettings => ({
  signatureWindowMinutes: config().signatureWindowMinutes,
  maxBodyBytes: config().maxBodyBytes,
});

import {
  FEEDBACK_RULE,
  type CommentRecord,
  type FeedbackRecord,
  type FeedbackRepository,
  type FeedbackThread,
  type VoteRecord,
} from '../domain/communication/feedback.js';
import { atomicWrite, type AtomicWrite, type CommitOutcome } from '../domain/atomic.js';
import { batchDeleteWithMirrors } from './batch.js';
import { GetCommand, type DynamoClient } from './dynamo-client.js';
import { ENTITY, feedbackKeys, keys } from './keys.js';
import { queryAll } from './query.js';
import { check, DynamoCommitter, EXISTS, LIVE, part, putNew, remove, update } from './transact.js';
import { Update } from './update.js';

/** `F#<feedback id>`, then `#C#<comment id>` or `#V#<user id>` (keys.ts, feedbackKeys). */
const SORT_KEY = /^F#([0-9a-f-]{36})(?:#([CV])#(.+))?$/;

const toFeedback = (item: Record<string, unknown>): FeedbackRecord => ({
  id: String(item.id),
  userId: String(item.user_id),
  createdAt: Number(item.created_at),
  ...(item.created_ms !== undefined ? { createdMs: Number(item.created_ms) } : {}),
  status: Number(item.status),
  title: String(item.title),
  description: String(item.description),
});
const toComment = (item: Record<string, unknown>): CommentRecord => ({
  id: String(item.id),
  createdAt: Number(item.created_at),
  ...(item.created_ms !== undefined ? { createdMs: Number(item.created_ms) } : {}),
  body: String(item.body),
});
const toVote = (item: Record<string, unknown>): VoteRecord => ({ userId: String(item.user_id), votedAt: Number(item.voted_at) });

/** Feedbacks with their comments and votes, from the items of the partition or of one feedback's prefix. */
function threadsOf(items: Record<string, unknown>[]): FeedbackThread[] {
  const threads = new Map<string, FeedbackThread>();
  const comments: [string, CommentRecord][] = [];
  const votes: [string, VoteRecord][] = [];
  for (const item of items) {
    const [, feedbackId, kind] = SORT_KEY.exec(String(item.sk)) ?? [];
    if (!feedbackId) continue;
    if (kind === 'C') comments.push([feedbackId, toComment(item)]);
    else if (kind === 'V') votes.push([feedbackId, toVote(item)]);
    else threads.set(feedbackId, { ...toFeedback(item), comments: [], votes: [] });
  }
  // A comment or vote without its feedback is one whose feedback is being deleted: not shown.
  for (const [id, comment] of comments) threads.get(id)?.comments.push(comment);
  for (const [id, vote] of votes) threads.get(id)?.votes.push(vote);
  return [...threads.values()];
}

/** The feedback portal: one partition per SaaS (keys.ts, feedbackKeys). */
export class DynamoFeedbackRepository implements FeedbackRepository {
  private readonly committer: DynamoCommitter;

  constructor(
    private readonly db: DynamoClient,
    private readonly table: string,
  ) {
    this.committer = new DynamoCommitter(db);
  }

  async all(saasId: string): Promise<FeedbackThread[]> {
    return threadsOf(await queryAll(this.db, this.table, feedbackKeys.all(saasId)));
  }

  async thread(saasId: string, feedbackId: string): Promise<FeedbackThread | undefined> {
    const [thread] = threadsOf(await queryAll(this.db, this.table, feedbackKeys.thread(saasId, feedbackId)));
    return thread;
  }

  async comment(saasId: string, feedbackId: string, commentId: string): Promise<CommentRecord | undefined> {
    const out = await this.db.send(
      new GetCommand({ TableName: this.table, Key: feedbackKeys.comment(saasId, feedbackId, commentId), ConsistentRead: true }),
    );
    return out.Item ? toComment(out.Item) : undefined;
  }

  private feedbackExists(saasId: string, feedbackId: string) {
    return check(this.table, feedbackKeys.feedback(saasId, feedbackId), EXISTS, FEEDBACK_RULE.feedbackExists);
  }

  private userLive(saasId: string, userId: string) {
    return check(this.table, keys.userProfile(saasId, userId), LIVE, FEEDBACK_RULE.userLive);
  }

  create(saasId: string, record: FeedbackRecord): AtomicWrite {
    const item = {
      ...feedbackKeys.feedback(saasId, record.id),
      entity: ENTITY.feedback,
      v: 1,
      id: record.id,
      user_id: record.userId,
      created_at: record.createdAt,
      ...(record.createdMs !== undefined ? { created_ms: record.createdMs } : {}),
      status: record.status,
      title: record.title,
      description: record.description,
    };
    return atomicWrite(this.userLive(saasId, record.userId), putNew(this.table, item, 'new_item'));
  }

  update(saasId: string, feedbackId: string, change: { title?: string; description?: string; status?: number }): AtomicWrite {
    const fields = new Update();
    if (change.title !== undefined) fields.set('title', change.title);
    if (change.description !== undefined) fields.set('description', change.description);
    if (change.status !== undefined) fields.set('status', change.status);
    return atomicWrite(update(this.table, feedbackKeys.feedback(saasId, feedbackId), fields, EXISTS, FEEDBACK_RULE.feedbackExists));
  }

  remove(saasId: string, feedbackId: string): AtomicWrite {
    return atomicWrite(remove(this.table, feedbackKeys.feedback(saasId, feedbackId), EXISTS, FEEDBACK_RULE.feedbackExists));
  }

  async removeThread(saasId: string, feedbackId: string): Promise<void> {
    await batchDeleteWithMirrors(this.db, this.table, await queryAll(this.db, this.table, feedbackKeys.thread(saasId, feedbackId)));
  }

  vote(saasId: string, feedbackId: string, vote: VoteRecord): AtomicWrite {
    // A second vote of the same user keeps the first one's time: it changes nothing.
    const change = new Update()
      .set('entity', ENTITY.feedbackVote)
      .set('v', 1)
      .set('user_id', vote.userId)
      .set('voted_at', vote.votedAt, 'if_not_exists(#self, :v)');
    const Key = feedbackKeys.vote(saasId, feedbackId, vote.userId);
    return atomicWrite(
      this.feedbackExists(saasId, feedbackId),
      this.userLive(saasId, vote.userId),
      part('vote', {
        Update: {
          TableName: this.table,
          Key,
          UpdateExpression: change.expression(),
          ExpressionAttributeNames: change.names,
          ExpressionAttributeValues: change.values,
        },
      }),
    );
  }

  unvote(saasId: string, feedbackId: string, userId: string): AtomicWrite {
    return atomicWrite(
      this.feedbackExists(saasId, feedbackId),
      remove(this.table, feedbackKeys.vote(saasId, feedbackId, userId), EXISTS, FEEDBACK_RULE.voteExists),
    );
  }

  addComment(saasId: string, feedbackId: string, comment: CommentRecord): AtomicWrite {
    const item = {
      ...feedbackKeys.comment(saasId, feedbackId, comment.id),
      entity: ENTITY.feedbackComment,
      v: 1,
      id: comment.id,
      created_at: comment.createdAt,
      ...(comment.createdMs !== undefined ? { created_ms: comment.createdMs } : {}),
      body: comment.body,
    };
    return atomicWrite(this.feedbackExists(saasId, feedbackId), putNew(this.table, item, 'new_item'));
  }

  editComment(saasId: string, feedbackId: string, commentId: string, body: string): AtomicWrite {
    const key = feedbackKeys.comment(saasId, feedbackId, commentId);
    return atomicWrite(update(this.table, key, new Update().set('body', body), EXISTS, FEEDBACK_RULE.commentExists));
  }

  removeComment(saasId: string, feedbackId: string, commentId: string): AtomicWrite {
    return atomicWrite(remove(this.table, feedbackKeys.comment(saasId, feedbackId, commentId), EXISTS, FEEDBACK_RULE.commentExists));
  }

  commit(write: AtomicWrite): Promise<CommitOutcome> {
    return this.committer.commit(write);
  }
}

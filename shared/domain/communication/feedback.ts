/**
 * The feedback portal of a SaaS (the SaaSus Communication API, /v1/communication): its users post feedback and
 * vote for it, the SaaS answers with comments and a status (0 new, 1 under consideration, 2 in progress, 3
 * implemented). A feedback and a vote name a user of this SaaS, checked in the same store write that records
 * them, so a user id of another SaaS, or of nobody, is refused. A vote counts once per user.
 */
import { randomUUID } from 'node:crypto';
import { nowMillis, nowSeconds } from '../../clock.js';
import { notFound } from '../../errors.js';
import type { AtomicWrite, CommitOutcome } from '../atomic.js';
import { byCreation, createdMs } from '../creation-order.js';

export interface CommentRecord {
  id: string;
  createdAt: number;
  /** When it was made, in milliseconds: the order within one second (absent on a record that has none). */
  createdMs?: number;
  body: string;
}

export interface VoteRecord {
  userId: string;
  votedAt: number;
}

export interface FeedbackRecord {
  id: string;
  userId: string;
  createdAt: number;
  /** When it was made, in milliseconds: the order within one second (absent on a record that has none). */
  createdMs?: number;
  status: number;
  title: string;
  description: string;
}

/** A feedback with what hangs on it, as one read of its items gives it. */
export interface FeedbackThread extends FeedbackRecord {
  comments: CommentRecord[];
  votes: VoteRecord[];
}

/** What a refused write names (FeedbackRepository's writes). */
export const FEEDBACK_RULE = {
  feedbackExists: 'feedback_exists',
  userLive: 'user_live',
  commentExists: 'comment_exists',
  voteExists: 'vote_exists',
} as const;

export interface FeedbackRepository {
  all(saasId: string): Promise<FeedbackThread[]>;
  thread(saasId: string, feedbackId: string): Promise<FeedbackThread | undefined>;
  comment(saasId: string, feedbackId: string, commentId: string): Promise<CommentRecord | undefined>;
  /** The feedback, if its author is a live user of the SaaS (`userLive`). */
  create(saasId: string, record: FeedbackRecord): AtomicWrite;
  /** Title, description or status of an existing feedback (`feedbackExists`). */
  update(saasId: string, feedbackId: string, change: { title?: string; description?: string; status?: number }): AtomicWrite;
  /** The feedback item (`feedbackExists`); its comments and votes go after it (`removeThread`). */
  remove(saasId: string, feedbackId: string): AtomicWrite;
  /** Every item left of a feedback, its own gone: comments and votes. */
  removeThread(saasId: string, feedbackId: string): Promise<void>;
  /** A vote of a live user (`userLive`) for an existing feedback (`feedbackExists`); a second vote is the first. */
  vote(saasId: string, feedbackId: string, vote: VoteRecord): AtomicWrite;
  /** A vote that exists (`voteExists`), of an existing feedback (`feedbackExists`). */
  unvote(saasId: string, feedbackId: string, userId: string): AtomicWrite;
  /** A comment on an existing feedback (`feedbackExists`). */
  addComment(saasId: string, feedbackId: string, comment: CommentRecord): AtomicWrite;
  /** The body of an existing comment (`commentExists`). */
  editComment(saasId: string, feedbackId: string, commentId: string, body: string): AtomicWrite;
  /** An existing comment (`commentExists`). */
  removeComment(saasId: string, feedbackId: string, commentId: string): AtomicWrite;
  commit(write: AtomicWrite): Promise<CommitOutcome>;
}

/** The Feedback schema's members (communicationapi.yml). */
export interface FeedbackAnswer {
  id: string;
  user_id: string;
  created_at: number;
  status: number;
  feedback_title: string;
  feedback_description: string;
  comments: CommentAnswer[];
  count: number;
  users: { user_id: string }[];
}

export interface CommentAnswer {
  id: string;
  created_at: number;
  body: string;
}

const toComment = (c: CommentRecord): CommentAnswer => ({ id: c.id, created_at: c.createdAt, body: c.body });

/** Oldest first, by the millisecond where one is kept, then by id. */
const byTime = byCreation<{ id: string; createdAt: number; createdMs?: number }>((record) => createdMs(record.createdMs, record.createdAt));

function votesOf(votes: VoteRecord[]): { count: number; users: { user_id: string }[] } {
  const ordered = [...votes].sort((a, b) => a.votedAt - b.votedAt || a.userId.localeCompare(b.userId));
  return { count: ordered.length, users: ordered.map((v) => ({ user_id: v.userId })) };
}

function toAnswer(thread: FeedbackThread): FeedbackAnswer {
  return {
    id: thread.id,
    user_id: thread.userId,
    created_at: thread.createdAt,
    status: thread.status,
    feedback_title: thread.title,
    feedback_description: thread.description,
    comments: [...thread.comments].sort(byTime).map(toComment),
    ...votesOf(thread.votes),
  };
}

const feedbackNotFound = (id: string) => notFound('feedback_not_found', `no feedback with id ${id}`);
const commentNotFound = (id: string) => notFound('feedback_comment_not_found', `no comment with id ${id} on this feedback`);
const userNotFound = (id: string) => notFound('user_not_found', `user_id: no user of this SaaS has id ${id}`);

export class FeedbackService {
  constructor(private readonly repository: FeedbackRepository) {}

  /** Commits, or answers the error of the rule that refused. */
  private async commit(write: AtomicWrite, refusals: Partial<Record<string, () => Error>>): Promise<void> {
    const outcome = await this.repository.commit(write);
    if (outcome.committed) return;
    const refusal = refusals[outcome.refusedBy];
    if (!refusal) throw new Error(`feedback: a write was refused by ${outcome.refusedBy}`);
    throw refusal();
  }

  /** Newest first: what the SaaS reads last came in. */
  async list(saasId: string): Promise<{ feedbacks: FeedbackAnswer[] }> {
    const threads = await this.repository.all(saasId);
    return { feedbacks: threads.sort((a, b) => byTime(b, a)).map(toAnswer) };
  }

  async get(saasId: string, feedbackId: string): Promise<FeedbackAnswer> {
    const thread = await this.repository.thread(saasId, feedbackId);
    if (!thread) throw feedbackNotFound(feedbackId);
    return toAnswer(thread);
  }

  async create(saasId: string, input: { user_id: string; feedback_title: string; feedback_description: string }): Promise<FeedbackAnswer> {
    const now = nowMillis();
    const record: FeedbackRecord = {
      id: randomUUID(),
      userId: input.user_id.toLowerCase(),
      createdAt: Math.floor(now / 1000),
      createdMs: now,
      status: 0,
      title: input.feedback_title,
      description: input.feedback_description,
    };
    await this.commit(this.repository.create(saasId, record), { [FEEDBACK_RULE.userLive]: () => userNotFound(input.user_id) });
    return toAnswer({ ...record, comments: [], votes: [] });
  }

  update(saasId: string, feedbackId: string, input: { feedback_title: string; feedback_description: string }): Promise<void> {
    const change = { title: input.feedback_title, description: input.feedback_description };
    return this.commit(this.repository.update(saasId, feedbackId, change), { [FEEDBACK_RULE.feedbackExists]: () => feedbackNotFound(feedbackId) });
  }

  updateStatus(saasId: string, feedbackId: string, status: number): Promise<void> {
    return this.commit(this.repository.update(saasId, feedbackId, { status }), {
      [FEEDBACK_RULE.feedbackExists]: () => feedbackNotFound(feedbackId),
    });
  }

  /**
   * The feedback goes first, so it is gone for every reader at once; its comments and votes follow. A vote or
   * comment written between the two needs the feedback, so none can outlive it.
   */
  async delete(saasId: string, feedbackId: string): Promise<void> {
    await this.commit(this.repository.remove(saasId, feedbackId), { [FEEDBACK_RULE.feedbackExists]: () => feedbackNotFound(feedbackId) });
    await this.repository.removeThread(saasId, feedbackId);
  }

  /** The feedback's votes after this one, which counts once however often the user votes. */
  async vote(saasId: string, feedbackId: string, userId: string): Promise<{ count: number; users: { user_id: string }[] }> {
    await this.commit(this.repository.vote(saasId, feedbackId, { userId: userId.toLowerCase(), votedAt: nowSeconds() }), {
      [FEEDBACK_RULE.feedbackExists]: () => feedbackNotFound(feedbackId),
      [FEEDBACK_RULE.userLive]: () => userNotFound(userId),
    });
    const thread = await this.repository.thread(saasId, feedbackId);
    if (!thread) throw feedbackNotFound(feedbackId);
    return votesOf(thread.votes);
  }

  unvote(saasId: string, feedbackId: string, userId: string): Promise<void> {
    return this.commit(this.repository.unvote(saasId, feedbackId, userId.toLowerCase()), {
      [FEEDBACK_RULE.feedbackExists]: () => feedbackNotFound(feedbackId),
      [FEEDBACK_RULE.voteExists]: () => notFound('vote_not_found', `user ${userId} has not voted for feedback ${feedbackId}`),
    });
  }

  async addComment(saasId: string, feedbackId: string, body: string): Promise<CommentAnswer> {
    const now = nowMillis();
    const comment: CommentRecord = { id: randomUUID(), createdAt: Math.floor(now / 1000), createdMs: now, body };
    await this.commit(this.repository.addComment(saasId, feedbackId, comment), {
      [FEEDBACK_RULE.feedbackExists]: () => feedbackNotFound(feedbackId),
    });
    return toComment(comment);
  }

  async comment(saasId: string, feedbackId: string, commentId: string): Promise<CommentAnswer> {
    const comment = await this.repository.comment(saasId, feedbackId, commentId);
    if (!comment) throw commentNotFound(commentId);
    return toComment(comment);
  }

  editComment(saasId: string, feedbackId: string, commentId: string, body: string): Promise<void> {
    return this.commit(this.repository.editComment(saasId, feedbackId, commentId, body), {
      [FEEDBACK_RULE.commentExists]: () => commentNotFound(commentId),
    });
  }

  removeComment(saasId: string, feedbackId: string, commentId: string): Promise<void> {
    return this.commit(this.repository.removeComment(saasId, feedbackId, commentId), {
      [FEEDBACK_RULE.commentExists]: () => commentNotFound(commentId),
    });
  }
}

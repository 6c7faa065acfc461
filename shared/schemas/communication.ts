/**
 * The SaaSus Communication API (/v1/communication), as its published definition (communicationapi.yml, v1.13.2)
 * names members and types: a SaaS's feedback portal, where its users post feedback and vote, and the SaaS
 * comments and sets a status. Lengths are this service's (the definition gives none).
 */
import * as Type from '@sinclair/typebox';
import type { OperationSchema } from './operation.js';
import { Uuid } from './common.js';

/** The definition's Status is an integer; SaaSus documents four (its feedback management page), and this service takes those. */
const Status = Type.Integer({
  minimum: 0,
  maximum: 3,
  description: '0 new, 1 under consideration, 2 in progress, 3 implemented (as SaaSus documents them)',
});
const Title = Type.String({ minLength: 1, maxLength: 200 });
const Text = Type.String({ maxLength: 10_000 });
const CommentBody = Type.String({ minLength: 1, maxLength: 10_000 });

const FeedbackSaveProps = { feedback_title: Title, feedback_description: Text };

export const Comment = Type.Object(
  { id: Uuid, created_at: Type.Integer({ description: 'Unix seconds' }), body: Type.String() },
  { $id: 'FeedbackComment' },
);

export const Votes = Type.Object(
  { count: Type.Integer({ minimum: 0 }), users: Type.Array(Type.Object({ user_id: Uuid })) },
  { $id: 'FeedbackVotes' },
);

export const Feedback = Type.Object(
  {
    id: Uuid,
    user_id: Uuid,
    created_at: Type.Integer({ description: 'Unix seconds' }),
    status: Type.Integer(),
    feedback_title: Type.String(),
    feedback_description: Type.String(),
    comments: Type.Array(Comment),
    count: Type.Integer({ minimum: 0, description: 'the number of votes' }),
    users: Type.Array(Type.Object({ user_id: Uuid }), { description: 'the users who voted, first vote first' }),
  },
  { $id: 'Feedback' },
);

const feedbackParams = Type.Object({ feedback_id: Uuid });
const commentParams = Type.Object({ feedback_id: Uuid, comment_id: Uuid });
const noBody = {} satisfies OperationSchema;

export const communicationSchemas = {
  createFeedback: { body: Type.Object({ user_id: Uuid, ...FeedbackSaveProps }), response: Feedback },
  getFeedbacks: { response: Type.Object({ feedbacks: Type.Array(Feedback) }, { $id: 'Feedbacks' }) },
  getFeedback: { params: feedbackParams, response: Feedback },
  updateFeedback: { params: feedbackParams, body: Type.Object(FeedbackSaveProps) },
  deleteFeedback: { params: feedbackParams },
  updateFeedbackStatus: { params: feedbackParams, body: Type.Object({ status: Status }) },
  createVoteUser: { params: feedbackParams, body: Type.Object({ user_id: Uuid }), response: Votes },
  deleteVoteForFeedback: { params: Type.Object({ feedback_id: Uuid, user_id: Uuid }) },
  createFeedbackComment: { params: feedbackParams, body: Type.Object({ body: CommentBody }), response: Comment },
  getFeedbackComment: { params: commentParams, response: Comment },
  updateFeedbackComment: { params: commentParams, body: Type.Object({ body: CommentBody }) },
  deleteFeedbackComment: { params: commentParams },
  returnCommunicationInternalServerError: noBody,
} satisfies Record<string, OperationSchema>;

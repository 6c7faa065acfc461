/**
 * The Communication API's operations (/v1/communication, shared/domain/communication), served by the pricing group's
 * function (shared/routes.ts): the feedback portal is a few small writes, not worth a function of its own.
 */
import { FeedbackService } from '../../shared/domain/communication/feedback.js';
import { HttpProblem } from '../../shared/http/errors.js';
import { communicationSchemas as s } from '../../shared/schemas/communication.js';
import { operation } from '../../shared/schemas/operation.js';
import { DynamoFeedbackRepository } from '../../shared/store/feedback-repository.js';
import { dynamo, tableName } from '../../shared/wiring.js';

const feedback = () => new FeedbackService(new DynamoFeedbackRepository(dynamo(), tableName()));

export const communicationOperations = {
  createFeedback: operation(s.createFeedback, ({ body }, ctx) => feedback().create(ctx.saasId, body)),
  getFeedbacks: operation(s.getFeedbacks, (_, ctx) => feedback().list(ctx.saasId)),
  getFeedback: operation(s.getFeedback, ({ params }, ctx) => feedback().get(ctx.saasId, params.feedback_id)),
  updateFeedback: operation(s.updateFeedback, ({ params, body }, ctx) => feedback().update(ctx.saasId, params.feedback_id, body)),
  deleteFeedback: operation(s.deleteFeedback, ({ params }, ctx) => feedback().delete(ctx.saasId, params.feedback_id)),
  updateFeedbackStatus: operation(s.updateFeedbackStatus, ({ params, body }, ctx) =>
    feedback().updateStatus(ctx.saasId, params.feedback_id, body.status),
  ),
  createVoteUser: operation(s.createVoteUser, ({ params, body }, ctx) => feedback().vote(ctx.saasId, params.feedback_id, body.user_id)),
  deleteVoteForFeedback: operation(s.deleteVoteForFeedback, ({ params }, ctx) => feedback().unvote(ctx.saasId, params.feedback_id, params.user_id)),
  createFeedbackComment: operation(s.createFeedbackComment, ({ params, body }, ctx) =>
    feedback().addComment(ctx.saasId, params.feedback_id, body.body),
  ),
  getFeedbackComment: operation(s.getFeedbackComment, ({ params }, ctx) => feedback().comment(ctx.saasId, params.feedback_id, params.comment_id)),
  updateFeedbackComment: operation(s.updateFeedbackComment, ({ params, body }, ctx) =>
    feedback().editComment(ctx.saasId, params.feedback_id, params.comment_id, body.body),
  ),
  deleteFeedbackComment: operation(s.deleteFeedbackComment, ({ params }, ctx) =>
    feedback().removeComment(ctx.saasId, params.feedback_id, params.comment_id),
  ),
  returnCommunicationInternalServerError: operation(s.returnCommunicationInternalServerError, async () => {
    throw new HttpProblem(500, 'internal_server_error', 'Internal server error (GET /errors/internal-server-error always answers this)');
  }),
};

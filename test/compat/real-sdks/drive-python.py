"""Drives the unmodified SaaSus Python SDK's integration and communication modules against the service, as a SaaS
backend would: the SDK folder is on PYTHONPATH, the SaaS's keys and the API's base URL come in SAASUS_* (the SDK
reads them itself), and USER_ID names a user of that SaaS. Prints one JSON line: every call with the class of the
model the SDK parsed the answer into (or the status of the exception it raised) and that model's members.
real-sdks.test.ts judges them."""

import json
import os
import sys

from saasus_sdk_python.client.communication_client import SignedCommunicationApiClient
from saasus_sdk_python.client.integration_client import SignedIntegrationApiClient
from saasus_sdk_python.src import communication, integration

user_id = os.environ["USER_ID"]
calls = []


def call(name, run):
    """One SDK method: the model it answered, or the status of the ApiException it raised."""
    try:
        result = run()
    except (integration.ApiException, communication.ApiException) as error:
        calls.append({"name": name, "status": error.status, "model": None, "data": None})
        return None
    data = result.to_dict() if hasattr(result, "to_dict") else None
    calls.append({"name": name, "status": None, "model": type(result).__name__, "data": data})
    return result


events = integration.EventBridgeApi(api_client=SignedIntegrationApiClient())
call(
    "save_event_bridge_settings",
    lambda: events.save_event_bridge_settings(
        integration.EventBridgeSettings(aws_account_id="267185063265", aws_region=integration.AwsRegion.AP_MINUS_NORTHEAST_MINUS_1)
    ),
)
call("get_event_bridge_settings", events.get_event_bridge_settings)
call("create_event_bridge_test_event", events.create_event_bridge_test_event)
call(
    "create_event_bridge_event",
    lambda: events.create_event_bridge_event(
        integration.CreateEventBridgeEventParam(
            event_messages=[integration.EventMessage(event_type="api_call", event_detail_type="create_user", message='{"id":"1"}')]
        )
    ),
)
call("delete_event_bridge_settings", events.delete_event_bridge_settings)
call("get_event_bridge_settings after delete", events.get_event_bridge_settings)
call("integration return_internal_server_error", integration.ErrorApi(api_client=SignedIntegrationApiClient()).return_internal_server_error)

feedback = communication.FeedbackApi(api_client=SignedCommunicationApiClient())
created = call(
    "create_feedback",
    lambda: feedback.create_feedback(
        communication.CreateFeedbackParam(user_id=user_id, feedback_title="保存ボタンの位置", feedback_description="押しにくい")
    ),
)
fid = created.id if created else "missing"
call("get_feedbacks", feedback.get_feedbacks)
call("get_feedback", lambda: feedback.get_feedback(fid))
call(
    "update_feedback",
    lambda: feedback.update_feedback(fid, communication.UpdateFeedbackParam(feedback_title="保存ボタン", feedback_description="右上へ")),
)
call("update_feedback_status", lambda: feedback.update_feedback_status(fid, communication.UpdateFeedbackStatusParam(status=2)))
call("create_vote_user", lambda: feedback.create_vote_user(fid, communication.CreateVoteUserParam(user_id=user_id)))
comment = call(
    "create_feedback_comment",
    lambda: feedback.create_feedback_comment(fid, communication.CreateFeedbackCommentParam(body="ご意見ありがとうございます。")),
)
cid = comment.id if comment else "missing"
call("get_feedback_comment", lambda: feedback.get_feedback_comment(fid, cid))
call(
    "update_feedback_comment",
    lambda: feedback.update_feedback_comment(fid, cid, communication.UpdateFeedbackCommentParam(body="対応予定です。")),
)
call("get_feedback after changes", lambda: feedback.get_feedback(fid))
call("delete_feedback_comment", lambda: feedback.delete_feedback_comment(fid, cid))
call("delete_vote_for_feedback", lambda: feedback.delete_vote_for_feedback(fid, user_id))
call("delete_feedback", lambda: feedback.delete_feedback(fid))
call("get_feedback after delete", lambda: feedback.get_feedback(fid))
call(
    "communication return_internal_server_error",
    communication.ErrorApi(api_client=SignedCommunicationApiClient()).return_internal_server_error,
)

sys.stdout.write(json.dumps(calls, ensure_ascii=False, default=str) + "\n")

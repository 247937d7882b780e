"""Verifies deliveries given as JSON on stdin (for the real-delivery test in packages/webhooks).

Input: [{"body_base64", "timestamp", "signature", "secrets": [...], "now"}]; output: one
{"ok": true, "event_uuid"} or {"ok": false, "reason"} per case, as JSON on stdout.
"""

import base64
import json
import sys

from integration_service_webhooks import WebhookVerificationError, verify


def check(case):
    try:
        event = verify(base64.b64decode(case["body_base64"]), case["timestamp"], case["signature"],
                       case["secrets"], now=case["now"])
        return {"ok": True, "event_uuid": event["event_uuid"]}
    except WebhookVerificationError as error:
        return {"ok": False, "reason": error.reason}


json.dump([check(case) for case in json.load(sys.stdin)], sys.stdout)

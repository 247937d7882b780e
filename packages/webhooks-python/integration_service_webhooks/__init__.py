"""Verify the integration service's signed webhook deliveries (standard library only).

X-SVC-Signature holds one or more comma-separated ``v1=<hex>`` values, each HMAC-SHA256 of
``<X-SVC-Timestamp>.<raw body>`` keyed with a subscription secret (two during a secret
rotation). A delivery is authentic when any value matches any given secret (compared in
constant time) and its timestamp is within the tolerance of the receiver's clock.
"""

import hashlib
import hmac
import json
import re
import time

__all__ = ["DEFAULT_TOLERANCE_SECONDS", "WebhookVerificationError", "sign", "verify"]

DEFAULT_TOLERANCE_SECONDS = 300

_TIMESTAMP = re.compile(r"^\d{1,12}$")
_SIGNATURE = re.compile(r"^v1=([0-9a-fA-F]{64})$")


class WebhookVerificationError(Exception):
    """A delivery that is not authentic; ``reason`` says why (answer it with 401)."""

    def __init__(self, reason, message):
        super().__init__(message)
        self.reason = reason


def _as_bytes(value):
    return value.encode("utf-8") if isinstance(value, str) else bytes(value)


def sign(secret, timestamp, raw_body):
    """``v1=`` + hex HMAC-SHA256 of ``<timestamp>.<raw body>``: what the service sends."""
    message = str(timestamp).encode("ascii") + b"." + _as_bytes(raw_body)
    return "v1=" + hmac.new(_as_bytes(secret), message, hashlib.sha256).hexdigest()


def _check_timestamp(timestamp, tolerance, now):
    if not timestamp:
        raise WebhookVerificationError("missing_timestamp", "no X-SVC-Timestamp")
    if not _TIMESTAMP.match(timestamp):
        raise WebhookVerificationError("malformed_timestamp", "X-SVC-Timestamp is not Unix seconds")
    skew = int(timestamp) - (time.time() if now is None else now)
    if skew < -tolerance:
        raise WebhookVerificationError("timestamp_too_old", "X-SVC-Timestamp is too old")
    if skew > tolerance:
        raise WebhookVerificationError("timestamp_in_future", "X-SVC-Timestamp is in the future")


def verify(raw_body, timestamp, signature, secrets, tolerance=DEFAULT_TOLERANCE_SECONDS, now=None):
    """Check one delivery and return its event (a dict).

    raw_body: the body exactly as received (bytes), before any JSON parsing.
    timestamp, signature: the X-SVC-Timestamp and X-SVC-Signature header values.
    secrets: the subscription's secret (``whsec_`` included), or a list of them.
    now: the receiver's clock in Unix seconds (default: time.time()).
    Raises WebhookVerificationError when the delivery is not authentic.
    """
    timestamp = (timestamp or "").strip()
    _check_timestamp(timestamp, tolerance, now)
    if not signature:
        raise WebhookVerificationError("missing_signature", "no X-SVC-Signature")
    secrets = [secrets] if isinstance(secrets, (str, bytes)) else list(secrets)
    expected = [sign(s, timestamp, raw_body)[3:] for s in secrets]
    given = [m.group(1).lower() for m in map(_SIGNATURE.match, (p.strip() for p in signature.split(","))) if m]
    matched = False
    # Every pair is compared, so the time taken does not say which one matched.
    for g in given:
        for e in expected:
            matched = hmac.compare_digest(g, e) or matched
    if not matched:
        raise WebhookVerificationError("signature_mismatch", "no signature matches the secret")
    try:
        return json.loads(_as_bytes(raw_body).decode("utf-8"))
    except ValueError as error:
        raise WebhookVerificationError("malformed_body", "the signed body is not JSON") from error

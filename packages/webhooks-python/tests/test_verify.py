"""Unit tests: python3 -m unittest discover -s tests (from packages/webhooks-python)."""

import unittest

from integration_service_webhooks import WebhookVerificationError, sign, verify

SECRET = "whsec_test-secret"
OTHER = "whsec_other-secret"
BODY = b'{"event_uuid":"703d2064-da0c-4376-950e-bfc9046c4886","event_type":"system.ping"}'
NOW = 1795766813
# The example request and secret of docs/webhook-subscribers.md.
GUIDE_SECRET = "whsec_AhOqrxGr8yewRU7XX9lzH0yEIlReMkqXkpbSFNYr55k"
GUIDE_SIGNATURE = "v1=a8c01b6278b82b6c4725e1e3aba6c300bc519073002611ea409aac84df78f0ce"
GUIDE_BODY = (
    b'{"links":{"self":"https://api.example.com/v1/applications/04036cb7-b44e-43df-b49a-00cbefaee3d9"},'
    b'"entity":{"id":"04036cb7-b44e-43df-b49a-00cbefaee3d9","type":"application"},'
    b'"event_type":"application.created","event_uuid":"703d2064-da0c-4376-950e-bfc9046c4886",'
    b'"occurred_at":"2026-11-27T08:06:53.134+00:00","event_version":1}'
)


class VerifyTest(unittest.TestCase):
    def reason(self, **changes):
        args = dict(raw_body=BODY, timestamp=str(NOW), signature=sign(SECRET, NOW, BODY),
                    secrets=SECRET, now=NOW)
        args.update(changes)
        with self.assertRaises(WebhookVerificationError) as caught:
            verify(**args)
        return caught.exception.reason

    def test_accepts_a_valid_delivery_and_returns_its_event(self):
        event = verify(BODY, str(NOW), sign(SECRET, NOW, BODY), SECRET, now=NOW)
        self.assertEqual(event["event_type"], "system.ping")

    def test_accepts_the_example_request_of_the_subscriber_guide(self):
        event = verify(GUIDE_BODY, "1795766813", GUIDE_SIGNATURE, GUIDE_SECRET, now=1795766813)
        self.assertEqual(event["event_uuid"], "703d2064-da0c-4376-950e-bfc9046c4886")

    def test_refuses_a_tampered_body_or_another_secret(self):
        self.assertEqual(self.reason(raw_body=BODY.replace(b"ping", b"pong")), "signature_mismatch")
        self.assertEqual(self.reason(secrets=OTHER), "signature_mismatch")

    def test_refuses_timestamps_outside_the_tolerance_both_ways(self):
        self.assertEqual(self.reason(now=NOW + 301), "timestamp_too_old")
        self.assertEqual(self.reason(now=NOW - 301), "timestamp_in_future")
        verify(BODY, str(NOW), sign(SECRET, NOW, BODY), SECRET, now=NOW + 300)
        verify(BODY, str(NOW), sign(SECRET, NOW, BODY), SECRET, tolerance=10, now=NOW - 10)

    def test_refuses_missing_or_malformed_headers(self):
        self.assertEqual(self.reason(timestamp=""), "missing_timestamp")
        self.assertEqual(self.reason(timestamp="12.5"), "malformed_timestamp")
        self.assertEqual(self.reason(signature=""), "missing_signature")
        self.assertEqual(self.reason(signature="v0=" + "0" * 64), "signature_mismatch")

    def test_accepts_any_listed_signature_with_any_given_secret(self):
        rotated = sign(OTHER, NOW, BODY) + "," + sign(SECRET, NOW, BODY)
        verify(BODY, str(NOW), rotated, SECRET, now=NOW)
        verify(BODY, str(NOW), rotated, OTHER, now=NOW)
        verify(BODY, str(NOW), sign(SECRET, NOW, BODY), [OTHER, SECRET], now=NOW)

    def test_refuses_a_signed_body_that_is_not_json(self):
        self.assertEqual(self.reason(raw_body=b"not json", signature=sign(SECRET, NOW, b"not json")),
                         "malformed_body")


if __name__ == "__main__":
    unittest.main()

"""Webhook-equivalent checks across objects: what Trainer's and JobSet's admission webhooks say."""

from trainc.checks.webhooks.cross_object import check_cross_object

__all__ = ["check_cross_object"]

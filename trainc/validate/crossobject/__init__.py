"""Webhook-equivalent checks across objects: what Trainer's and JobSet's admission webhooks say."""

from trainc.validate.crossobject.run import check_cross_object

__all__ = ["check_cross_object"]

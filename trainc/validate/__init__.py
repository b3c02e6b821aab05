"""Offline validation: schema, CEL rules, webhook-equivalent checks and organisation policies."""

"""What the API server checks of each object on its own.

Structural schema, defaults, ObjectMeta, CEL rules.
"""

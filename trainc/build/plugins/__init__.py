"""One plugin per upstream concern; each a no-op unless its policy is set."""

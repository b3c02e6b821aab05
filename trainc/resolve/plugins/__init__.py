"""One plugin per upstream concern, enforce phases only; each a no-op unless its policy is set."""

"""One builder per upstream concern; each returns no object unless its policy is set."""

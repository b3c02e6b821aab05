"""Reading the repository: discovery, YAML with positions, sandboxed templates, git revisions."""

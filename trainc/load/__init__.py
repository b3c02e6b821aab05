"""Reading the repository: file discovery, YAML with positions, sandboxed templates, git revisions."""

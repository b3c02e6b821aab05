"""Review tools: what an edit does to the cluster, shown before it merges."""

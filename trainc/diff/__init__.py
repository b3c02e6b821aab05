"""``trainc diff``: what an edit does to the cluster, compared and rendered before it merges."""

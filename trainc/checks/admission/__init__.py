"""What the cluster's admission plugins decide about the objects a TrainJob makes it create.

Validation says whether the API server can store an object; admission says whether this
cluster lets it in. Each family here is a pure model of one admission plugin, fed with the
cluster's own settings, so that a refusal the cluster would make shows up before the sync.
"""

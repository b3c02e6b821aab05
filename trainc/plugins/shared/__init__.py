"""What two or more plugins share, below them so that no plugin imports another."""

"""The checks of the Pod Security Standards, one module per check or small family."""

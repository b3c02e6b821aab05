"""CEL rules (``x-kubernetes-validations`` and policies) evaluated with Kubernetes semantics."""

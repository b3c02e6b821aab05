"""Building manifests: small plugins, applied in upstream's phase order to a shared context."""

"""trainc.yaml: its model, the settings a run uses, and every check and warning about them."""

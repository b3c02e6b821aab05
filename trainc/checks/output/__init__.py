"""Every object trainc is about to write, judged as the API server would judge it."""

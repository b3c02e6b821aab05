"""``trainc migrate``: old spellings of the Trainer API rewritten in the files that hold them."""

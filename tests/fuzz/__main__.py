"""``python -m tests.fuzz``: the long fuzz run (see :mod:`tests.fuzz.run`)."""

from tests.fuzz.run import main

raise SystemExit(main())

"""What checks of every family and the plugins' validate parts share.

Reading a runtime's template tolerantly (:mod:`.template`), wording a message that points
at another object (:mod:`.findings`), placing a finding on the input line a resolved value
came from (:mod:`.locate`). It sits below the plugins so that their checks and the runners
that call them (:mod:`trainc.checks.webhooks`, :mod:`trainc.checks.created`) can share it.
"""

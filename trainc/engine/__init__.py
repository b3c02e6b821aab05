"""The run as stages over data, for every command that reads the repository.

:mod:`.repository` runs a repository: the file pass (:mod:`.file_pass`: read, load,
per-object checks, cache), the object checks across files (:mod:`.pipeline`), then the
job pass (:mod:`.job_pass`: resolve, judge, build, check the output, render), with
worker processes (:mod:`.workers`) and the cache wiring (:mod:`.cache`).
:mod:`.compile` adds compile's output stage (:mod:`.output`); :mod:`.diff` and
:mod:`.explain` keep each built job for the comparison (:mod:`trainc.diff`) and the
origins (:mod:`trainc.explain`). Stages are pure functions of what the run prepared and
return findings or objects; the engine calls them, they never call back.
"""

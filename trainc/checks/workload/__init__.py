"""The API server's own validation of the Jobs and Pods the JobSet controller creates.

A JobSet passes its CRD, is stored, and only then does the JobSet controller create one
Job per replicatedJob, and the Job controller that Job's Pods. Those objects are judged
by the rules kube-apiserver applies in Go (``pkg/apis/batch/validation``,
``pkg/apis/core/validation``), which no OpenAPI schema carries; when one fails, the
training never starts and nothing in git says why. This package reproduces those rules
over plain JSON data, one concern per module, each returning
:class:`~trainc.checks.workload.fielderrors.FieldError` values in the API server's
words; the caller locates them in the user's files.
"""

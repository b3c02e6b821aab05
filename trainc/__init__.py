"""trainc: compile Kubeflow TrainJobs and their runtimes into reviewed, GitOps-ready manifests.

The public façade is :mod:`trainc.app`; everything else is an implementation detail that
the command line, the Argo CD plugin, the pre-commit hooks and the tests share.
"""

__version__ = "0.1.0"

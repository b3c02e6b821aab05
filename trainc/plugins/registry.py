"""The plugins, in upstream's order; each phase's list follows from the protocols they implement.

Upstream registers its plugins in a Go map
(https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/plugins/registry.go),
which leaves the order within a phase random; here it is this tuple's order (a test pins
it), for validation, every enforce phase and building alike
(:func:`trainc.resolve.framework.plan`). A new framework is its module in this package and
one line here, never a branch inside another plugin.

Runners read :data:`PLUGINS` when they run, not when they are imported, so a test may put
a tuple of its own here for one run (see ``tests/plugins/conftest.py``).
"""

from __future__ import annotations

from trainc.plugins.coscheduling import CoschedulingPlugin
from trainc.plugins.flux import FluxPlugin
from trainc.plugins.jax import JAXPlugin
from trainc.plugins.jobset import JobSetPlugin
from trainc.plugins.kueue import KueuePlugin
from trainc.plugins.lifecycle import LifecyclePlugin
from trainc.plugins.metadata import TrainJobMetadataPlugin
from trainc.plugins.mpi import MPIPlugin
from trainc.plugins.plainml import PlainMLPlugin
from trainc.plugins.torch import TorchPlugin
from trainc.plugins.volcano import VolcanoPlugin
from trainc.plugins.volumes import VolumesPlugin
from trainc.plugins.xgboost import XGBoostPlugin
from trainc.resolve.phases import Plugin

PLUGINS: tuple[Plugin, ...] = (
    JobSetPlugin(),  # trainer/initializer overrides, counts into the template, the stored JobSet
    TorchPlugin(),  # with TorchTune's recipes
    MPIPlugin(),
    PlainMLPlugin(),
    JAXPlugin(),
    XGBoostPlugin(),
    FluxPlugin(),
    CoschedulingPlugin(),
    VolcanoPlugin(),
    VolumesPlugin(),  # KEP-572 claims: volumes into pods, claims as objects
    KueuePlugin(),  # Kueue's labels and MultiKueue's managedBy on the JobSet
    LifecyclePlugin(),  # trainc's labels and the sweeper's annotations on the JobSet
    TrainJobMetadataPlugin(),  # the TrainJob's other labels and annotations, where free
)

"""The plugins, in upstream's order; per-phase lists follow from the protocols they implement.

Order within a phase is this tuple's order (a test pins it), where upstream's Go map
leaves it random (https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/plugins/registry.go).
A new concern is a new module and
one line here, never a branch inside another plugin.
"""

from __future__ import annotations

from trainc.resolve.plugins.coscheduling import CoschedulingPlugin
from trainc.resolve.plugins.flux import FluxPlugin
from trainc.resolve.plugins.jax import JAXPlugin
from trainc.resolve.plugins.jobset import JobSetPlugin
from trainc.resolve.plugins.kueue import KueuePlugin
from trainc.resolve.plugins.lifecycle import LifecyclePlugin
from trainc.resolve.plugins.metadata import TrainJobMetadataPlugin
from trainc.resolve.plugins.mpi import MPIPlugin
from trainc.resolve.plugins.plainml import PlainMLPlugin
from trainc.resolve.plugins.torch import TorchPlugin
from trainc.resolve.plugins.volcano import VolcanoPlugin
from trainc.resolve.plugins.volumes import VolumesPlugin
from trainc.resolve.plugins.xgboost import XGBoostPlugin

PLUGINS: tuple[object, ...] = (
    JobSetPlugin(),  # trainer/initializer overrides, counts into the template, the stored JobSet
    TorchPlugin(),
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

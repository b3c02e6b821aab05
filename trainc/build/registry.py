"""The plugins, in upstream's order; per-phase lists follow from the protocols they implement.

Order within a phase is this tuple's order (a test pins it), where upstream's Go map
leaves it random (``upstream-semantics.md`` §2.14). A new concern is a new module and
one line here, never a branch inside another plugin.
"""

from __future__ import annotations

from trainc.build.plugins.coscheduling import CoschedulingPlugin
from trainc.build.plugins.flux import FluxPlugin
from trainc.build.plugins.jax import JAXPlugin
from trainc.build.plugins.jobset import JobSetPlugin
from trainc.build.plugins.lifecycle import LifecyclePlugin
from trainc.build.plugins.mpi import MPIPlugin
from trainc.build.plugins.plainml import PlainMLPlugin
from trainc.build.plugins.torch import TorchPlugin
from trainc.build.plugins.volcano import VolcanoPlugin
from trainc.build.plugins.volumes import VolumesPlugin
from trainc.build.plugins.xgboost import XGBoostPlugin

PLUGINS: tuple[object, ...] = (
    JobSetPlugin(),  # trainer/initializer overrides, counts into the template, the JobSet
    TorchPlugin(),
    MPIPlugin(),
    PlainMLPlugin(),
    JAXPlugin(),
    XGBoostPlugin(),
    FluxPlugin(),
    CoschedulingPlugin(),
    VolcanoPlugin(),
    VolumesPlugin(),  # KEP-572 claims: volumes into pods, claims as objects
    LifecyclePlugin(),  # trainc's labels and the sweeper's annotations on everything
)

"""Trainer's runtime plugins, one module each, as upstream's runtime framework has them.

A module holds all a plugin does: its validate part (the webhook's checks of the runtime and
TrainJob that belong to it), its enforce phases and its build part (the objects it adds),
as upstream's https://github.com/kubeflow/trainer/tree/master/pkg/runtime/framework/plugins
does. The phases are in :mod:`trainc.resolve.phases`; the order in
:mod:`trainc.plugins.registry`. Plugins never import each other: what two share lives in
:mod:`trainc.plugins.shared`.
"""

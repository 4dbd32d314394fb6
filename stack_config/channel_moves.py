"""Warnings about what the auto-upgrade channel will do next (no Pulumi imports): the stack file's side of
:func:`rules.upgrade.upgrade_channel_next_move`, logged by the program and listed by the preflight."""

from __future__ import annotations

from rules.upgrade import upgrade_channel_next_move, validated_minors

from .models import StackConfig


def pinned_validated_minors(cfg: StackConfig) -> dict[str, str]:
    """The stack's pinned GPU components (the GPU operator when enabled, the KAITO add-on) → the newest Kubernetes
    minor each is validated on (:func:`rules.upgrade.validated_minors`)."""
    return validated_minors(
        gpu_operator_version=cfg.gpuOperator.version if cfg.gpuOperator.enabled else None,
        kaito_addon=cfg.kaito_addon,
    )


def channel_move_warnings(cfg: StackConfig) -> list[str]:
    """``cluster.autoUpgradeChannel: …`` when the channel's next move (the minor it reaches when AKS makes the next
    minor generally available, with the date that is expected) leaves a pinned component's validated range."""
    cluster = cfg.cluster
    found = upgrade_channel_next_move(
        cluster.autoUpgradeChannel, cluster.kubernetesVersion, pinned_validated_minors(cfg), today=cfg.today
    )
    return [f"cluster.{f.field}: {f.message}" for f in found]

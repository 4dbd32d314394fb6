"""The program's side of the stack file: read ``azure-gpu-platform:*`` from the engine, validate it with the
Pulumi-free :mod:`stack_config`, log the warnings and refuse with a ``pulumi.RunError`` (no traceback in the CLI)."""

from __future__ import annotations

from typing import Any

import pulumi
from pulumi.runtime import config as runtime_config

from stack_config import NAMESPACE, StackConfig, StackConfigError, stack_file_name, validate_stack_config
from stack_config.channel_moves import channel_move_warnings
from stack_config.fleet_members import fleet_warnings
from stack_config.inert import inert_settings
from stack_config.keys import foreign_key_findings, referenced_keys
from stack_config.landing_zone import landing_zone_warnings
from stack_config.loading import decode_config_value


class StackFileRefused(StackConfigError, pulumi.RunError):
    """:class:`StackConfigError` raised inside a Pulumi program: the CLI prints a ``RunError``'s message alone."""


def _config_keys() -> set[str]:
    """Every config key the engine (or the mocks) hand the program, of every namespace."""
    return set(runtime_config.CONFIG.get()) | set(runtime_config.get_config_env())


def _raw_config(keys: set[str]) -> dict[str, Any]:
    """Every ``azure-gpu-platform:*`` value among ``keys``, decoded by :func:`decode_config_value`."""
    prefix = f"{NAMESPACE}:"
    return {
        key[len(prefix) :]: decode_config_value(runtime_config.get_config(key))
        for key in sorted(k for k in keys if k.startswith(prefix))
    }


def config_value_present(key: str) -> bool:
    """Whether the Pulumi config the program runs with has ``key`` (``<namespace>:<key>``), secret or not: the
    ``config_present`` the stack config checks a KAITO workspace's ``modelAccessTokenConfig`` with.

    A ``secure:`` value reaches the program decrypted under the engine, and as an opaque placeholder marked secret
    under the offline preflight (``preflight/mock_answers.py``): present either way.
    """
    return runtime_config.get_config(key) is not None


def load_stack_config(stack_file: str | None = None) -> StackConfig:
    """Read ``pulumi.Config("azure-gpu-platform")`` and validate it. Call before registering any resource.

    Keys under a misspelled namespace are refused with the others; keys nothing reads are warned about
    (:mod:`stack_config.keys`); settings that do nothing without their switch are warned about
    (:mod:`stack_config.inert`), and so is an auto-upgrade channel whose next move leaves a pinned component's
    validated range (:mod:`stack_config.channel_moves`).
    """
    pulumi.Config(NAMESPACE)  # the namespace this program reads (keeps `pulumi config` tooling consistent)
    where = stack_file or stack_file_name(pulumi.get_stack())
    keys = _config_keys()
    raw = _raw_config(keys)
    problems, warnings = foreign_key_findings(
        keys, project=NAMESPACE, project_keys=StackConfig.model_fields, referenced=referenced_keys(raw)
    )
    for warning in warnings:
        pulumi.log.warn(f"{where}: {warning}")
    try:
        cfg = validate_stack_config(raw, stack_file=where, extra=problems, config_present=config_value_present)
    except StackConfigError as refused:
        raise StackFileRefused(refused.problems, refused.stack_file) from None
    for warning in [
        *inert_settings(cfg),
        *channel_move_warnings(cfg),
        *landing_zone_warnings(cfg),
        *fleet_warnings(cfg),
    ]:
        pulumi.log.warn(f"{where}: {warning}")
    return cfg

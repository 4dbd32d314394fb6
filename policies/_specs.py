"""The pool spec (:class:`rules.specs.AksGpuPool`) built from an AKS pool's wire props, partially: the pack judges a
raw ``AgentPool`` or ``agentPoolProfiles`` entry with the defaults the platform's doors resolve (the OS SKU of an
``osType``, who installs the driver), read once per pool and request.

Only the fields the pack's policies read are taken, and only known values (a policy reports an unknown field before
it asks for the spec); what AKS itself defaults differently from the spec is given as AKS does: a pool without
``nodeTaints`` has none (the spec would add the GPU taint), a pool without ``gpuProfile.driver`` gets AKS's driver.
Read: ``agentPoolName`` / ``name``, the size(s), ``osType``, ``osSKU``, ``gpuProfile.driver``, ``nodeTaints``,
``nodeLabels``, ``gpuInstanceProfile`` (in AKS's spelling, as the spec resolves it), ``scaleSetPriority``.
"""

from __future__ import annotations

from rules.specs import AksGpuPool

from ._resources import Pool


def wire_pool(pool: Pool) -> AksGpuPool:
    """``pool``'s props as the spec (module docstring); built once per :class:`~policies._resources.Pool` (the pools
    are shared by the policies of one request)."""
    spec = pool.spec
    if spec is None:
        spec = _build(pool)
        object.__setattr__(pool, "_spec", spec)
    return spec


def _build(pool: Pool) -> AksGpuPool:
    os_type, sku = pool.get("osType"), pool.get("osSKU")
    driver, taints, name = pool.get("gpuProfile", "driver"), pool.get("nodeTaints"), pool.name
    labels, profile, priority = pool.get("nodeLabels"), pool.get("gpuInstanceProfile"), pool.get("scaleSetPriority")
    return AksGpuPool(
        name=name if isinstance(name, str) else pool.prefix,
        vm_size=pool.size_label,
        os="Windows" if isinstance(os_type, str) and os_type.lower() == "windows" else "Linux",
        os_sku=sku if isinstance(sku, str) and sku else None,  # None: the spec resolves the OS type's default
        driver_skipped=isinstance(driver, str) and driver.lower() == "none",
        taints=tuple(t for t in taints if isinstance(t, str)) if isinstance(taints, list) else (),
        labels={str(k): str(v) for k, v in labels.items()} if isinstance(labels, dict) else {},
        mig_profile=profile if isinstance(profile, str) and profile else None,  # the spec canonicalises it
        spot=isinstance(priority, str) and priority.lower() == "spot",
    )

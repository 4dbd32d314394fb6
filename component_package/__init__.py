"""The Pulumi component package ``azure-gpu-platform``: :mod:`component_package.gpu_package`, served by ``__main__``."""

"""The package's identity: its name (the first part of every type token), namespace and version."""

PACKAGE_NAME = "azure-gpu-platform"
"""The package name: the first part of every type token (``azure-gpu-platform:index:GpuNodePool``) and the name of the
generated SDKs. The project's own component tokens (``azure-gpu-platform:components:*``) use the same package name."""
NAMESPACE = "azure-gpu-platform"
"""The publisher namespace the generated SDKs are named under."""
VERSION = "0.1.0"
"""The package version (the schema's ``version``). Raise it, and tag the repository ``v<version>``, for a release."""

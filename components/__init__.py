"""Pulumi components of the platform (AKS GPU cluster, GPU node pools, GPU operator) and the stack config."""

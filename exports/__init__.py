"""Guard rails as policies enforced outside Pulumi, generated from the same rules (no Pulumi imports).

- :mod:`exports.azure_policy`: an Azure Policy definition that refuses AKS agent pools whose VM size the size rules
  (:mod:`rules.sizes`) refuse, at the ARM layer (``az aks nodepool add``, the portal, KAITO's node provisioner).
- :mod:`exports.databricks_policy`: a Databricks cluster policy that lets the cluster form offer only what the
  Databricks rules (:mod:`rules.databricks`) accept.

``python -m exports azure-policy`` / ``databricks-policy`` writes either as JSON for teams that manage policies with
Terraform, Bicep or EPAC; the platform program deploys them with :mod:`components.azure_policy` and
:mod:`components.databricks`.
"""

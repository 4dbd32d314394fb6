"""The CrossGuard policy pack ``azure-gpu-guardrails``: one module per policy, named after the policy.

``policies.pack.ALL_POLICIES`` finds them (a policy registers itself by being a module here; name order);
``__main__.py`` serves them (as the Pulumi engine starts a pack);
``python -m policies.rules_md`` renders ``RULES.md`` from their metadata.
"""

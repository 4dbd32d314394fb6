"""The engine side of Pulumi's analyzer (policy pack) gRPC protocol.

Modules, by job: :mod:`.protocol` (the messages' Python shapes, levels, errors, Struct marshalling),
:mod:`.policy_config` (what ``Configure`` must send), :mod:`.process` (the pack's process and the engine service it
calls back), :mod:`.client` (the engine's calls: :class:`~preflight.analyzer.client.PolicyPackProcess`,
:func:`~preflight.analyzer.client.run_policy_pack`).

A CrossGuard policy pack is checked offline exactly as ``pulumi preview --policy-pack <dir>`` checks it: the pack is
started the way the Python language host starts it (``python -u -m pulumi.policy <engine-address> <pack-dir>``, working
directory = pack dir, ``PULUMI_PROJECT``/``PULUMI_STACK``/``PULUMI_DRY_RUN``/``PULUMI_ORGANIZATION``/``PULUMI_CONFIG``
in the environment, the gRPC port on the first stdout line) and this module plays the engine:

1. ``Handshake`` (pulumi_policy answers UNIMPLEMENTED, which the engine tolerates too), ``ConfigureStack``;
2. ``GetAnalyzerInfo``;
3. ``Configure`` with an entry for EVERY policy: schema defaults, then the pack's ``initialConfig``, then the user's
   policy config (the ``all`` key sets every level), validated against each policy's config schema as the engine
   does. An enforcement level is always sent: pulumi_policy reads a missing level as ``advisory``;
4. per resource ``Remediate`` then ``Analyze`` (properties = the resource inputs as a protobuf ``Struct``, top-level
   ``__`` keys stripped for ``Analyze``, numbers as doubles, unknown preview values as the sentinel string);
5. ``AnalyzeStack`` once with every resource (parent, dependencies, property dependencies, properties = inputs,
   which is what the engine sends for resources being created in a preview).

Where this client is deliberately stricter than the engine: a policy name in the user's config that the pack does not
define, and a config property a policy's schema does not declare, are errors (the engine ignores both silently, so a
typo would disable nothing and configure nothing).

``Remediate`` is skipped when no policy runs at level ``remediate``: pulumi_policy's ``Remediate`` does nothing at all
unless a policy has that level, so the verdict is identical and each resource costs one round trip instead of two.
"""

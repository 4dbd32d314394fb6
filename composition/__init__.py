"""The composition root: a validated :class:`stack_config.StackConfig` → component Args (:mod:`composition.wiring`)
→ components (:mod:`composition.platform`), and the program's reading of the stack file from the engine
(:mod:`composition.stack_file`). ``components/`` holds only Pulumi components and their Args; ``stack_config/`` only
the Pulumi-free stack-file models and checks."""

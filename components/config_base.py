"""Base class for every stack-config model: strict (unknown keys rejected), immutable, camelCase keys as written."""

from pydantic import BaseModel, ConfigDict


class StrictModel(BaseModel):
    """A stack-config section. Keys are exactly the camelCase keys users write in ``stacks/Pulumi.<env>.yaml``."""

    # defer_build: a model's validator is built when it is first used, not when its class is created. Validating the
    # root StackConfig builds everything it needs; the nested models' own validators, which the program never uses
    # on their own, are not built twice at import (~120 ms of every program run and preflight; bench/RESULTS.md).
    model_config = ConfigDict(extra="forbid", frozen=True, strict=False, validate_default=True, defer_build=True)

"""Base class for every stack-config model: strict (unknown keys rejected), immutable, camelCase keys as written."""

from pydantic import BaseModel, ConfigDict


class StrictModel(BaseModel):
    """A stack-config section. Keys are exactly the camelCase keys users write in ``stacks/Pulumi.<env>.yaml``."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=False, validate_default=True)

"""The base of every file-format model: unknown fields are kept, errors name file and JSON path."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, ValidationError

from studio.errors import FormatError
from studio.fileio import atomic_write_json, read_json
from studio.models.validation_text import problems_from


class FileModel(BaseModel):
    """A model of one JSON file (or one JSON line).

    `extra="allow"` keeps fields an author or a newer version added, so a rewrite never drops them.
    """

    model_config = ConfigDict(extra="allow", validate_assignment=True, populate_by_name=True)

    @classmethod
    def parse_data(cls, data: Any, path: Path | str = "<data>") -> Self:
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise FormatError(problems_from(exc, path)) from None

    @classmethod
    def load(cls, path: Path) -> Self:
        return cls.parse_data(read_json(path), path)

    @classmethod
    def load_or_default(cls, path: Path) -> Self:
        """Optional files: a missing file gives the defaults; a present but broken one is an error."""
        if not Path(path).exists():
            return cls()
        return cls.load(path)

    def to_data(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)

    def save(self, path: Path) -> None:
        atomic_write_json(path, self.to_data())

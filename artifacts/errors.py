"""Errors raised while reading, writing or loading artifacts."""

from __future__ import annotations


class ArtifactError(Exception):
    """An artifact directory is missing, corrupt, truncated or inconsistent.

    The message names the file concerned (``build/m.gradc/objects/ab12….o``).
    """


class FormatVersionError(ArtifactError):
    """The artifact was written in a format version this gradc cannot read.

    Attributes:
        found: the artifact's ``(major, minor)`` format version.
        supported: the format version this gradc writes.
    """

    def __init__(self, message: str, found: tuple[int, int], supported: tuple[int, int]):
        super().__init__(message)
        self.found = found
        self.supported = supported


class ArtifactWarning(UserWarning):
    """An existing artifact was found damaged (truncated manifest, missing or corrupt blob)
    where it could be rebuilt; the message names the file and says what happens instead."""

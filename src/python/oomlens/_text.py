"""Text as the core reads it: bytes, whatever the log held.

A log read with errors="surrogateescape" (the hook's captured stderr, a file opened
that way) keeps its invalid bytes as lone surrogates, which no UTF-8 str conversion
accepts (one byte made diagnose() raise TypeError). The core takes bytes: the escapes
become the bytes they stand for, and any other lone surrogate a replacement mark.
"""
from typing import Union

TextLike = Union[str, bytes, bytearray, memoryview]


def as_bytes(text: TextLike) -> bytes:
    """The bytes the core scans for text (str, bytes or any bytes-like object)."""
    if isinstance(text, str):
        try:
            return text.encode("utf-8", errors="surrogateescape")
        except UnicodeEncodeError:  # a lone surrogate no decoder escaped
            return text.encode("utf-8", errors="replace")
    if isinstance(text, (bytes, bytearray, memoryview)):
        return bytes(text)
    raise TypeError(f"oomlens reads text as str or bytes, not {type(text).__name__}")


"""Canonical encoding and cache keys."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gradc.artifacts.keys import canonical_encode, sha256_key


def test_pinned_encoding() -> None:
    # Changing this encoding changes every cache key: bump KEY_DOMAIN if you must.
    value = {"b": 1, "a": [True, None, 1.5, "x", b"y", False, -7]}
    assert canonical_encode(value) == (
        b"m2:s1:al7:TNd\x3f\xf8\x00\x00\x00\x00\x00\x00s1:xb1:yFi-7;s1:bi1;"
    )
    assert sha256_key(value) == sha256_key({"a": [True, None, 1.5, "x", b"y", False, -7], "b": 1})
    assert len(sha256_key(value)) == 64


def test_types_are_distinguished() -> None:
    values = [1, 1.0, True, "1", b"1", [1], {"1": 1}, None, 0, False, 0.0, -0.0, "", b""]
    encodings = {canonical_encode(v) for v in values}
    assert len(encodings) == len(values)


def test_tuples_encode_as_lists() -> None:
    assert canonical_encode((1, 2)) == canonical_encode([1, 2])


@pytest.mark.parametrize("bad", [{1, 2}, object(), 1j, {"a": [frozenset()]}])
def test_unencodable_values_raise(bad: object) -> None:
    with pytest.raises(TypeError, match="cannot encode"):
        canonical_encode(bad)


json_like = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4)
    ),
    max_leaves=20,
)


@given(st.dictionaries(st.text(max_size=8), json_like, max_size=6), st.randoms())
def test_map_order_does_not_matter(d: dict[str, object], rnd) -> None:  # type: ignore[no-untyped-def]
    items = list(d.items())
    rnd.shuffle(items)
    assert canonical_encode(dict(items)) == canonical_encode(d)


def _normal(v: object) -> str:
    """A repr that ignores dict order but tells 1/1.0/True and -0.0/0.0 apart."""
    if isinstance(v, dict):
        return "{" + ",".join(sorted(f"{k!r}:{_normal(x)}" for k, x in v.items())) + "}"
    if isinstance(v, list):
        return "[" + ",".join(_normal(x) for x in v) + "]"
    return repr(v)


@given(json_like, json_like)
def test_encoding_is_injective(a: object, b: object) -> None:
    assert (canonical_encode(a) == canonical_encode(b)) == (_normal(a) == _normal(b))

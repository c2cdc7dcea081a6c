"""The parent-child chunker's parts: one line for a part that cannot be one."""

from __future__ import annotations

import pytest

from jw_rag.chunkers import get_chunker
from jw_rag.errors import ConfigError


@pytest.mark.parametrize(
    ("spec", "fix"),
    [
        ("parent-child:parent=parent-child", "structure"),
        ("parent-child:child=parent-child", "paragraph"),
        ("parent-child:child=Parent-Child", "paragraph"),
    ],
)
def test_a_parent_child_part_that_is_parent_child_is_refused_by_name(spec: str, fix: str) -> None:
    # was "chunker 'parent-child' has no option 'max_chars'": an option nobody gave
    role = spec.split(":")[1].split("=")[0]
    with pytest.raises(ConfigError) as err:
        get_chunker(spec)
    assert str(err.value) == (
        f"the {role} of a parent-child chunker cannot be another parent-child chunker: "
        f"name one such as {fix}"
    )
    with pytest.raises(ConfigError, match="cannot be another parent-child"):
        get_chunker("parent-child", **{role: "parent-child", f"{role}_options": {}})


def test_parts_that_are_chunkers_still_build() -> None:
    chunker = get_chunker("parent-child:parent=page,child=semantic")
    children, parents = chunker.chunk_hierarchy(["One.", "Two."], "d")
    assert [c.metadata["parent_id"] for c in children] == [parents[0].id]

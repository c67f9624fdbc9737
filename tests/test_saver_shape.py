"""The savers' shape: each public saver has its parts rather than a tower of bases.

A saver's method resolution order holds at most three of the package's own
classes: the saver, its body (the one shared base) and the public API
declaration. Everything else (the checkpoint store, the driver, the writer,
the lease keeper) is an object the saver has.
"""

from __future__ import annotations

import pytest

from langgraph_actionckpt import ActionSaver, AsyncActionSaver
from langgraph_actionckpt.service.remote import AsyncRemoteActionSaver, RemoteActionSaver


@pytest.mark.parametrize(
    "cls", [ActionSaver, AsyncActionSaver, RemoteActionSaver, AsyncRemoteActionSaver]
)
def test_a_saver_inherits_at_most_three_classes_of_the_package(cls: type) -> None:
    own = [c.__qualname__ for c in cls.__mro__ if c.__module__.startswith("langgraph_actionckpt")]
    assert len(own) <= 3, own

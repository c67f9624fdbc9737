"""``@action``: replay for anything that is not an LLM or a tool (HTTP, SQL, SDK calls)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar, cast, overload

from langgraph_actionckpt.errors import ConfigurationError
from langgraph_actionckpt.replay import _async_calls, _sync_calls
from langgraph_actionckpt.replay.context import current_action_var

P = ParamSpec("P")
R = TypeVar("R")


@overload
def action(func: Callable[P, R]) -> Callable[P, R]: ...


@overload
def action(
    *, idempotent: bool = True, name: str | None = None, reusable: bool = False
) -> Callable[[Callable[P, R]], Callable[P, R]]: ...


def action(
    func: Callable[P, R] | None = None,
    *,
    idempotent: bool = True,
    name: str | None = None,
    reusable: bool = False,
) -> Any:
    """Record and replay a plain function or coroutine as one action.

    Inside a graph checkpointed by this package's saver, a call whose result is
    logged is not executed again; its logged result is returned. Outside such
    graphs the function just runs. Arguments and results are stored with the
    package's reversible JSON encoding (bytes, datetimes, pydantic models and
    LangChain messages included); non-JSON results come back as their JSON form.

    Args:
        func: The function (when used as ``@action`` without parentheses).
        idempotent: False for side effects that must not happen twice (sending
            an email, charging a card): the intent row is durable before the
            call, and a call caught in flight by a crash is not executed again
            but raises :class:`~langgraph_actionckpt.InFlightActionError`.
        name: Action name (default: the function's qualified name).
        reusable: Its result depends on its arguments only, so a run with a
            reuse policy (:mod:`langgraph_actionckpt.reuse`) may serve another
            thread's result for the same (or, semantically, equivalent)
            arguments. Not allowed with ``idempotent=False``.

    Raises:
        ConfigurationError: ``reusable=True`` with ``idempotent=False``.

    Example::

        @action(idempotent=False)
        def send_email(to: str, body: str) -> str:
            return smtp.send(to, body, idempotency_key=current_action())
    """

    if reusable and not idempotent:
        raise ConfigurationError("a non-idempotent action is never reused: drop reusable=True")

    def wrap(fn: Callable[P, R]) -> Callable[P, R]:
        action_name: str = name or str(
            getattr(fn, "__qualname__", getattr(fn, "__name__", "action"))
        )
        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def arun(*args: P.args, **kwargs: P.kwargs) -> Any:
                return await _async_calls.call_action(
                    fn, action_name, idempotent, args, kwargs, reusable
                )

            return cast(Callable[P, R], arun)

        @functools.wraps(fn)
        def run(*args: P.args, **kwargs: P.kwargs) -> R:
            return cast(
                R, _sync_calls.call_action(fn, action_name, idempotent, args, kwargs, reusable)
            )

        return run

    if func is not None:
        return wrap(func)
    return wrap


def current_action() -> str | None:
    """The idempotency key of the action running now (inside a tool or ``@action``).

    Pass it downstream (e.g. as an ``Idempotency-Key`` header) so a service can
    deduplicate a call that a crash forced to be made again.
    """
    return current_action_var.get()

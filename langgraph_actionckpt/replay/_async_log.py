"""Reads and writes of the action log around the replay decision.

``_async_log.py`` is the source and ``_sync_log.py`` is generated from it
(``python .ci/gen_sync.py``): :func:`begin`, :func:`complete` and :func:`fail`
have the same names and the same logic in both worlds. The decision itself is
in :mod:`langgraph_actionckpt.replay.core`. Callers reach these functions
through the module (``log.complete(...)``), so a test can wrap them.
"""

from __future__ import annotations

import logging
from typing import Any, cast

from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.db import lease
from langgraph_actionckpt.replay import exact
from langgraph_actionckpt.replay.context import TaskScope, stable_hash
from langgraph_actionckpt.replay.core import (
    DURABLE,
    LEASED,
    NOT_REPLAYABLE,
    ROWS,
    Live,
    decide,
    finish,
    index_rows,
    interrupts,
    served,
)

logger = logging.getLogger("langgraph_actionckpt")


async def begin(
    scope: TaskScope,
    kind: str,
    name: str,
    request: Any,
    *,
    idempotent: bool,
    input: Any,
    reusable: Any = None,
    types: exact.Types | None = None,
) -> ActionRecord | Live:
    """Look the action up; return the logged record to serve, or a :class:`Live` to run.

    With ``types`` (the classes a ``@action`` or tool declares it returns) a
    logged result is served exactly as it was returned (see
    :mod:`~langgraph_actionckpt.replay.exact`), or not at all.

    A live non-idempotent action's row is durable before this returns; an
    idempotent one's is queued. Before the first live action of a task the
    checkpoint the task was prepared from is made durable (the barrier that
    keeps task ids stable under ``durability="async"``).

    When the task's own log has no result and the run has a reuse policy
    (:mod:`langgraph_actionckpt.reuse`), an idempotent action that is
    ``reusable`` (what must match besides the request: the LLM string, the tool
    schema; None: never reused) is looked up among other threads' results; a
    hit is returned as a new row of this thread that names its source.
    """
    if not scope.counters.get(LEASED):
        # Before the task's rows are read: another worker may be writing them.
        await lease.aacquire(scope.saver, scope.thread_id)
        scope.counters[LEASED] = True
    # Taken over by another worker (the heartbeat found out): run nothing more.
    lease.check(scope.saver, scope.thread_id)
    h = stable_hash([kind, name, request])
    action_id = scope.action_id(kind, name, h)
    rows = await _rows_of_task(scope)
    old = rows.get(action_id)
    serve: ActionRecord | str | None = old
    if types is not None and old is not None and old.status == "completed" and old.replayable:
        serve = exact.rebuild(old, cast(Any, scope.saver).serde, types)
        if isinstance(serve, str):  # not served; decide() says what happens instead
            old.replayable = False
            old.meta = {**(old.meta if isinstance(old.meta, dict) else {}), NOT_REPLAYABLE: serve}
    decided = decide(scope, rows, action_id, kind, name, idempotent, h, input)
    if isinstance(decided, ActionRecord):
        served(scope, decided)
        return serve if isinstance(serve, ActionRecord) else decided
    policy = scope.reuse
    # only an action's first attempt: a retry (the node failed, perhaps because of
    # that answer) or a re-run of a failed action asks the model or tool itself
    first = decided.record.attempt == 1
    if old is not None and isinstance(old.meta, dict) and "reused_from" in old.meta:
        # the live row replaces a reused one: say so (the meta upsert keeps non-null values)
        decided.record.meta = {"reuse_replaced": old.meta["reused_from"]}
    if policy is not None and reusable is not None and idempotent and first:
        ticket = policy.ticket(kind, name, request, reusable, h)
        if ticket is not None:
            hit = await policy.areuse_lookup(scope, decided.record, ticket)
            if hit is not None and types is not None:
                exact_hit = exact.rebuild(hit, cast(Any, scope.saver).serde, types)
                hit = exact_hit if isinstance(exact_hit, ActionRecord) else None
            if hit is not None:
                rows[action_id] = hit
                await _barrier(scope)
                scope.saver.writer.enqueue(hit)
                return cast(ActionRecord, hit)
            decided.reuse = ticket
    await _barrier(scope)
    if idempotent:
        scope.saver.writer.enqueue(decided.record)
    else:
        await scope.saver.writer.awrite_now(decided.record)
    return decided


async def complete(live: Live, output: Any, **fields: Any) -> None:
    """Log a live action's result durably (replay will serve it), then offer it for reuse."""
    record = finish(live, output, None, **fields)
    await live.scope.saver.writer.awrite_now(record)
    if live.reuse is not None and live.scope.reuse is not None:
        try:
            await live.scope.reuse.areuse_store(live.scope, record, live.reuse)
        except Exception as exc:  # noqa: BLE001 - a lost entry costs a future miss, not this call
            logger.warning("could not store %s for reuse: %s", record.action_id, exc)


async def fail(live: Live, error: BaseException) -> None:
    """Log a live action's failure (failed actions are executed again, never served).

    A non-idempotent action stopped from outside (see
    :func:`~langgraph_actionckpt.replay.core.interrupts`) is logged
    ``interrupted`` instead: its effect may have happened, so a resume stops
    with :class:`~langgraph_actionckpt.InFlightActionError` as after a crash.

    Written now, like a completion: the row must precede the writes LangGraph
    stores for the task (its ``node``/``branch`` rows), so ``step_index`` order
    stays causal. Failures are rare, so the round trip costs little.
    """
    cut = not live.record.idempotent and interrupts(error)
    record = finish(live, None, error, "interrupted" if cut else "")
    try:
        await live.scope.saver.writer.awrite_now(record)
    except Exception as exc:  # noqa: BLE001 - never mask the action's own error
        logger.warning("could not log failure of %s now (queued): %s", record.action_id, exc)
        live.scope.saver.writer.enqueue(record)


async def _rows_of_task(scope: TaskScope) -> dict[str, ActionRecord]:
    """The task's logged actions, loaded once per attempt of each execution of the task."""
    rows = scope.counters.get(ROWS)
    if rows is None:
        saver = cast(Any, scope.saver)
        rows = index_rows(scope, await saver.alist_actions(scope.thread_id, task_id=scope.task_id))
        scope.counters[ROWS] = rows
    return cast(dict[str, ActionRecord], rows)


async def _barrier(scope: TaskScope) -> None:
    """Make the task's checkpoint durable before its first live action (once)."""
    if scope.counters.get(DURABLE):
        return
    await scope.saver.await_durable(scope.checkpoint_ids, scope.durability)
    scope.counters[DURABLE] = True

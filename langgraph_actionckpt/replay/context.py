"""Where am I? The LangGraph task (or run agent) an action runs in, and its identity.

LangGraph derives a task id by hashing the checkpoint the task was prepared
from, its namespace, step, node and triggers. A task re-run after a crash gets
the same id as long as that checkpoint was durable, so an action key made of
``(task id, kind, name, hash(request), n-th identical request in this
execution)`` names the same action in the crashed run and in the resumed one.
Outside a graph, an agent of an :class:`~langgraph_actionckpt.ActionRun`
stands in for the task (:mod:`.run`).
"""

from __future__ import annotations

import contextvars
import hashlib
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from langgraph_actionckpt._contracts import ActionSaverLike, as_action_saver
from langgraph_actionckpt.actions.fields import agent_id_for
from langgraph_actionckpt.db import encoding as _encoding
from langgraph_actionckpt.errors import ConfigurationError


@dataclass(slots=True)
class TaskScope:
    """The running task, as seen from inside it.

    Attributes:
        saver: Our saver that checkpoints the graph.
        thread_id: The thread.
        task_ns: The task's checkpoint namespace (``node:<task id>``, nested for subgraphs).
        graph_ns: The namespace of the (sub)graph that runs the task (``""`` at the root).
        task_id: The task id (stable across a crash when its checkpoint was durable).
        checkpoint_id: The checkpoint the task was prepared from (None in an ActionRun).
        checkpoint_ids: That checkpoint and its ancestors' (subgraph tasks hash the parent's).
        node: The node name.
        step: The superstep.
        attempt: The node attempt (RetryPolicy bumps it).
        durability: ``sync``, ``async`` or ``exit``.
        run_id: The run id, when the caller gave one.
        agent_id: The (sub)graph path, or ``metadata["agent_id"]`` when the caller set one.
        counters: Occurrence counters shared by everything in this execution of the task.
        reuse: The reuse policy of this run (``configurable["actionckpt_reuse"]``,
            else the saver's ``reuse=``), or None.
    """

    saver: ActionSaverLike
    thread_id: str
    task_ns: str
    graph_ns: str
    task_id: str
    checkpoint_id: str | None
    checkpoint_ids: tuple[str, ...]
    node: str | None
    step: int | None
    attempt: int
    durability: str
    run_id: str | None
    agent_id: str
    counters: dict[Any, Any]
    reuse: Any = None

    def next_occurrence(self, key: Any) -> int:
        """The n-th time this request is made in this execution (0-based)."""
        with _lock:
            n: int = self.counters.get(key, 0)
            self.counters[key] = n + 1
        return n

    def action_id(self, kind: str, name: str, request_hash: str) -> str:
        """A deterministic idempotency key for the next such request in this task."""
        n = self.next_occurrence((kind, name, request_hash))
        return f"{self.task_id}:{kind}:{name}:{request_hash[:16]}:{n}"


_lock = threading.Lock()
_counters: dict[int, dict[Any, Any]] = {}
_owners: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()

# Set while a replayed call re-enters model/tool code, so nested hooks stand aside.
replaying: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "actionckpt_replaying", default=False
)
# Set by the replay layer around a live action, so the callback handler can join its rows.
current_action_var: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "actionckpt_current_action", default=None
)
# Set inside an ActionRun (replay/run.py): makes the scope of its agent's next action.
run_scope: contextvars.ContextVar[Callable[[], TaskScope] | None] = contextvars.ContextVar(
    "actionckpt_run_scope", default=None
)


def _execution_counters(conf: dict[str, Any], attempt: int) -> dict[Any, Any]:
    """A dict that lives exactly as long as this attempt of this execution of the task.

    Each prepared task gets its own writes deque, and ``__pregel_send`` is its
    bound ``extend``; nodes with a timeout get a per-attempt closure instead.
    Either object identifies this execution and is weak-referenceable.
    A RetryPolicy retry reuses the deque, so counters are kept per attempt: the
    retry's n-th request gets the same key as the failed attempt's, and what
    that attempt completed is replayed instead of executed again.
    """
    send = conf.get("__pregel_send")
    if send is None:
        return {}
    owner = getattr(send, "__self__", send)
    key = id(owner)
    with _lock:
        if _owners.get(key) is not owner:
            try:
                _owners[key] = owner
            except TypeError:  # not weak-referenceable: counters per call are still safe
                return {}
            _counters[key] = {}
            weakref.finalize(owner, _counters.pop, key, None)
        per_attempt: dict[Any, Any] = _counters[key]
        return per_attempt.setdefault(attempt, {})  # type: ignore[no-any-return]


def task_scope(saver: ActionSaverLike | None = None) -> TaskScope | None:
    """The running task if it belongs to a graph checkpointed by one of our savers.

    Outside such a task, the agent of the innermost
    :class:`~langgraph_actionckpt.ActionRun` the code runs under, if any.

    Args:
        saver: Only match this saver (None: any of ours).

    Returns:
        None outside both, in graphs checkpointed by another saver (and no
        run), when replay is switched off for the saver, or under
        ``durability="exit"``.
    """
    scope = _graph_scope(saver)
    make = run_scope.get() if scope is None else None
    if make is not None:
        scope = make()
        if saver is not None and scope.saver is not saver:
            return None
    return scope


def _graph_scope(saver: ActionSaverLike | None) -> TaskScope | None:
    try:
        from langgraph.config import get_config

        config = get_config()
    except (RuntimeError, ImportError):
        return None
    conf = config.get("configurable") or {}
    # as_action_saver: the Agent Server hands graphs an adapter wrapping our saver
    checkpointer = as_action_saver(conf.get("__pregel_checkpointer"))
    if checkpointer is None or (saver is not None and checkpointer is not saver):
        return None
    if not checkpointer.replay:
        return None
    runtime = conf.get("__pregel_runtime")
    info = getattr(runtime, "execution_info", None)
    if info is None or not info.task_id:
        return None
    durability = conf.get("__pregel_durability") or "async"
    if durability == "exit":
        _warn_exit_durability()
    metadata = config.get("metadata") or {}
    task_ns = info.checkpoint_ns or ""
    graph_ns = task_ns.rsplit("|", 1)[0] if "|" in task_ns else ""
    step = metadata.get("langgraph_step")
    attempt = int(info.node_attempt or 1)
    return TaskScope(
        saver=checkpointer,
        thread_id=str(conf.get("thread_id")),
        task_ns=task_ns,
        graph_ns=graph_ns,
        task_id=info.task_id,
        checkpoint_id=info.checkpoint_id,
        checkpoint_ids=tuple(str(v) for v in (conf.get("checkpoint_map") or {}).values())
        or (info.checkpoint_id,),
        node=metadata.get("langgraph_node"),
        step=step if isinstance(step, int) else None,
        attempt=attempt,
        durability=durability,
        run_id=str(info.run_id) if info.run_id else _str(metadata.get("run_id")),
        agent_id=agent_id_for(graph_ns, metadata),
        counters=_execution_counters(conf, attempt),
        reuse=_reuse_policy(conf, checkpointer),
    )


def _reuse_policy(conf: dict[str, Any], saver: ActionSaverLike) -> Any:
    """The run's reuse policy: ``configurable["actionckpt_reuse"]`` (False: none) or the saver's."""
    policy = conf.get("actionckpt_reuse")
    if policy is None:
        policy = getattr(saver, "reuse", None)
    if policy and getattr(saver, "driver", None) is None:
        # the reuse entries live in the saver's own database; a remote saver has none
        raise ConfigurationError(
            f"reuse needs a saver with its own database (ActionSaver, AsyncActionSaver); "
            f"{type(saver).__name__} stores through the checkpoint service, which does "
            "not offer reuse: drop configurable['actionckpt_reuse'] for this saver"
        )
    return policy or None


_exit_warned = False


def _warn_exit_durability() -> None:
    global _exit_warned
    if _exit_warned:
        return
    _exit_warned = True
    import warnings

    warnings.warn(
        "a graph checkpointed by langgraph-actionckpt runs with durability='exit': no "
        "checkpoint is written until the run ends, so task ids are not stable across a crash "
        "and logged actions cannot be replayed after one. Use durability='async' (the "
        "default) or 'sync' for per-action resume.",
        RuntimeWarning,
        stacklevel=4,
    )


def _str(value: Any) -> str | None:
    return None if value is None else str(value)


def stable_hash(value: Any) -> str:
    """A hex digest of a value, stable across processes (canonical JSON, sorted keys)."""
    data = orjson.dumps(_encoding.to_jsonable(value), option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(data).hexdigest()

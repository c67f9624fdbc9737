"""Recovery queries of a run: each agent's last completed action and its actions in flight.

No I/O here: :func:`progress_of` turns a run's rows into a :class:`RunProgress`;
``run_progress``/``arun_progress`` (:mod:`.run`) read the rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.replay.core import UNKNOWN_OUTCOME

DEFAULT_AGENT = "root"
"""The agent id of a run entered without one (the id a graph's root gets)."""


@dataclass
class AgentProgress:
    """Where one agent of a run stands, from the log.

    Attributes:
        agent_id: The agent.
        completed: How many of its actions completed.
        last_completed: Its last completed action (None: none yet).
        in_flight: Its actions whose outcome is unknown (``pending``,
            ``running``, ``unknown``, ``interrupted``), in recorded order.
    """

    agent_id: str
    completed: int = 0
    last_completed: ActionRecord | None = None
    in_flight: list[ActionRecord] = field(default_factory=list)


@dataclass
class RunProgress:
    """Where a run stands, from the log: what an orchestrator asks before resuming it.

    Attributes:
        run_id: The run.
        last_completed: The run's last completed action (None: none yet).
        in_flight: The run's actions whose outcome is unknown, in recorded order.
        agents: Each agent's progress, by agent id.
    """

    run_id: str
    last_completed: ActionRecord | None
    in_flight: list[ActionRecord]
    agents: dict[str, AgentProgress]


def progress_of(run_id: str, records: Sequence[ActionRecord]) -> RunProgress:
    """A run's progress from its rows (in recorded order); no I/O."""
    run = RunProgress(run_id, None, [], {})
    for rec in records:
        agent_id = rec.agent_id or DEFAULT_AGENT
        agent = run.agents.setdefault(agent_id, AgentProgress(agent_id))
        if rec.status == "completed":
            run.last_completed = agent.last_completed = rec
            agent.completed += 1
        elif rec.status in UNKNOWN_OUTCOME:
            run.in_flight.append(rec)
            agent.in_flight.append(rec)
    return run

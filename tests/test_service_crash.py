"""A crash story through the checkpoint service (issue 15).

Worker processes reach the thread only through the service (``--target``):
one is SIGKILLed right after its k-th live action is logged, another resumes
the thread. Real executions are counted outside the processes, as in
``test_crash_matrix.py``: 0 completed LLM or tool calls run again.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from langgraph_actionckpt import RemoteActionSaver

from . import test_crash_matrix as matrix
from .crash_worker import EXIT_INFLIGHT, charge_output
from .service_fixtures import Service, running
from .test_crash_matrix import ACTIONS, Case, Outcome, Report, Workdir, run_case, run_worker


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    from .conftest import server_dsn

    yield from running(server_dsn("pg18"), tmp_path_factory.mktemp("svc"), n=4)


def test_crash_and_resume_through_the_service(service: Service) -> None:
    token, _, schema = service.tenant()
    extra = {"target": service.target, "token": token}
    dsn = service.dsn
    n_llm, n_tools = ACTIONS["reference"]
    with tempfile.TemporaryDirectory(prefix="svc-crash-") as tmp:
        root = Path(tmp)
        # the uninterrupted run, through the service as well
        case = Case("reference", "sync", "async")
        work = Workdir(root, case.thread)
        done = run_worker(dsn, schema, case, work, resume=False, tag="base", **extra)
        assert done.rc == 0, done.stderr
        expected = done.data["state"]
        assert sum(work.seeds().values()) == n_llm
        rows = []
        for mode in ("sync", "async"):
            for k in range(1, n_llm + n_tools + 1):
                case = Case("reference", mode, "async", kill_after=k)
                rep = run_case_remote(dsn, schema, root, case, expected, extra)
                rows.append((mode, k, rep.executions, rep.duplicates, rep.problems))
        print("\nmode  k exec dup")
        for mode, k, ex, dup, _ in rows:
            print(f"{mode:<5}{k:>2}{ex:>5}{dup:>4}")
        assert [r for r in rows if r[4]] == []
        # 0 completed LLM or tool calls ran again: 7 executions per case, no duplicate
        assert all(ex == n_llm + n_tools and dup == 0 for _, _, ex, dup, _ in rows)


def run_case_remote(
    dsn: str, schema: str, root: Path, case: Case, expected: dict[str, Any], extra: dict[str, str]
) -> Report:
    """``run_case`` with both worker processes going through the service."""
    original = matrix.run_worker

    def through_service(*args: Any, **kwargs: Any) -> Outcome:
        return original(*args, **kwargs, **extra)

    matrix.run_worker = through_service  # run_case looks it up in its module
    try:
        return run_case(dsn, schema, root, case, expected)
    finally:
        matrix.run_worker = original


def test_in_flight_charge_resolved_through_the_service(service: Service) -> None:
    """A non-idempotent tool killed in flight is refused on resume, then resolved remotely."""
    token, _, schema = service.tenant()
    extra = {"target": service.target, "token": token}
    dsn = service.dsn
    with tempfile.TemporaryDirectory(prefix="svc-charge-") as tmp:
        root = Path(tmp)
        case = Case("reference", "async", "async", kill_inside="charge")
        work = Workdir(root, case.thread)
        crashed = run_worker(dsn, schema, case, work, resume=False, tag="crash", **extra)
        assert crashed.rc == -9, crashed.stderr
        (charge_key,) = [k for k in work.effect_keys() if k.startswith("charge ")]
        action_id = charge_key.split(" ", 1)[1]
        refused = run_worker(dsn, schema, case, work, resume=True, tag="refused", **extra)
        assert refused.rc == EXIT_INFLIGHT, refused.stderr
        assert refused.data["action_id"] == action_id
        with RemoteActionSaver.from_target(service.target, token) as saver:
            row = saver.get_action(case.thread, action_id)
            assert row is not None and row.status == "running" and row.idempotent is False
            saver.resolve_action(case.thread, action_id, output=charge_output(42))
            assert [
                r.action_id
                for r in saver.list_actions(case.thread, action_type="tool_call")
                if r.name == "charge"
            ] == [action_id]
        done = run_worker(dsn, schema, case, work, resume=True, tag="done", **extra)
        assert done.rc == 0, done.stderr
        keys = work.effect_keys()
        assert keys[charge_key] == 1  # never charged twice
        assert all(n == 1 for n in keys.values())
        assert all(n == 1 for n in work.seeds().values())

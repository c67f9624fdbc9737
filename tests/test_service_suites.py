"""The replay, parity and saver suites again, with the remote savers as ``saver``/``asaver``.

The test functions are those of ``test_replay.py``, ``test_langgraph_parity.py``,
``test_saver.py``, ``test_serde_allowlist.py`` and ``test_functional_allowlist.py``
that use only the ``saver``/``asaver`` fixtures; here those
fixtures are a :class:`RemoteActionSaver` / :class:`AsyncRemoteActionSaver` of
a fresh tenant of a checkpoint service (the tests that reach into the database
or take the DB-session leases stay with the direct savers).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from langgraph_actionckpt import AsyncRemoteActionSaver, RemoteActionSaver

from .service_fixtures import Service, running
from .test_functional_allowlist import (  # noqa: F401
    test_task_result_after_interrupt_matches_inmemory,
    test_task_result_after_interrupt_matches_inmemory_async,
)
from .test_langgraph_parity import (  # noqa: F401 - collected here with the fixtures below
    test_graph_features_match_inmemory_saver,
    test_graph_features_match_inmemory_saver_async,
)
from .test_replay import (  # noqa: F401
    test_action_decorator_async,
    test_action_decorator_sync,
    test_durability_exit_runs_but_promises_no_replay,
    test_failed_attempt_output_not_replayed_into_retry,
    test_llm_styles_replay_async,
    test_llm_styles_replay_sync,
    test_ordinary_exception_reasks_last_completion,
    test_other_checkpointer_is_untouched,
    test_streaming_model_under_stream_mode_messages,
    test_tool_calls_replay,
    test_tools_invoked_directly_async,
    test_tools_invoked_directly_in_a_node,
)
from .test_saver import (  # noqa: F401
    test_add_messages_history_round_trips,
    test_fifty_megabyte_value_round_trips,
    test_node_rows_are_written_by_the_saver,
    test_non_serializable_value_is_a_clear_error,
    test_nul_and_surrogates_round_trip_async,
    test_nul_and_surrogates_round_trip_sync,
)
from .test_serde_allowlist import (  # noqa: F401
    strict,
    test_graph_state_types_load_back,
    test_graph_state_types_load_back_async,
)


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    from .conftest import SERVERS, server_dsn

    yield from running(
        server_dsn(SERVERS[0]),
        tmp_path_factory.mktemp("svc"),
        n=200,
        max_request_bytes=128 * 1024 * 1024,
    )


@pytest.fixture
def saver(service: Service) -> Iterator[RemoteActionSaver]:
    token, _, _ = service.tenant()
    with RemoteActionSaver.from_target(service.target, token, setup=True) as s:
        yield s


@pytest.fixture
async def asaver(service: Service) -> AsyncIterator[AsyncRemoteActionSaver]:
    token, _, _ = service.tenant()
    async with AsyncRemoteActionSaver.from_target(service.target, token, setup=True) as s:
        yield s

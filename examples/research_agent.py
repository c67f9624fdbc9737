"""A research agent is killed with SIGKILL halfway through, and picks up where it died.

The story
---------
A research agent (``langchain.agents.create_agent``) answers a question by
searching the web, fetching three pages (each fetch downloads the page, then
asks the LLM to extract the key facts) and taking notes, then writes a report.

1. The agent runs in a *child process*. While it is busy with the second page
   (the download is done and the LLM has extracted the page's key fact, but
   the tool call has not returned) the parent kills it with a real
   ``SIGKILL``: no exception, no cleanup, no flush.
2. The parent resumes the same thread with ``graph.invoke(None, config)``.
   Two things come back from PostgreSQL, and the script tallies them apart:

   * what LangGraph's checkpoint restored: the results of nodes that had
     finished (model turns and whole tool calls) are not run again. Any
     LangGraph checkpointer does this.
   * what the action log served: the download and the LLM call the dead
     process had finished *inside* the interrupted tool call are ``replayed``
     from the log instead of being paid for again. This is what this package
     adds: a checkpointer alone would run both again.
3. The same question is run once more, uninterrupted, on another thread. The
   resumed run must end in exactly the same state, and no completed action may
   have been executed twice. The script prints the action table, the two
   tallies (calls, tokens, and what those tokens would have cost at an
   assumed price) and the seconds the crash did not cost.

Exit code 0 only when the resumed state equals the uninterrupted one.

Runs offline (a deterministic scripted model) unless ``OPENAI_API_KEY`` is set,
in which case it uses ``ChatOpenAI`` (``OPENAI_MODEL``, ``OPENAI_BASE_URL``).

    python examples/research_agent.py [--dsn DSN] [--schema S] [--thread T]
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import (
    child_exit_hint,
    count_actions,
    example_args,
    get_model,
    log_call,
    new_thread_id,
    normalize_messages,
    print_actions,
    read_calls,
    resolve_dsn,
    run_child_and_kill,
    using_real_model,
    workdir_for,
)

QUESTION = "How does PostgreSQL make committed transactions survive a crash?"
SYSTEM = (
    "You are a careful research assistant. First call search_web once, then call "
    "fetch_page for each URL it returns, one at a time, then call take_notes with "
    "what you learned, and finally answer with a short report."
)
PRICE_PER_1K_TOKENS = 0.002  # USD, an assumed blended price (input + output): $2 per 1M tokens
WORK_TYPES = ("llm_completion", "tool_call", "function")

PAGES = {
    "wal": "PostgreSQL writes every change to the write-ahead log (WAL) before the data files. "
    "A commit returns only after its WAL record is flushed to disk with fsync.",
    "checkpoint": "A checkpoint flushes dirty pages to the data files and records a redo point; "
    "after a crash, recovery replays the WAL from that redo point.",
    "fsync": "Turning fsync off makes commits fast but a power loss can corrupt the cluster; "
    "synchronous_commit=off only risks losing the last few commits.",
}


# ----------------------------------------------------------------- the agent


def research_script(messages: list[Any], kwargs: dict[str, Any]) -> Any:
    """The offline model's policy: a pure function of the conversation."""
    from langchain_core.messages import AIMessage

    if not kwargs.get("tools"):  # the extraction call inside fetch_page
        text = str(messages[-1].content)
        first = text.split(". ")[0].split(":", 1)[-1].strip()
        return AIMessage(content=f"Key fact: {first}.")
    tool_msgs = [m for m in messages if m.type == "tool"]
    done = [m.name for m in tool_msgs]
    question = next(str(m.content) for m in messages if m.type == "human")

    def call(name: str, **args: Any) -> AIMessage:
        return AIMessage(
            content="", tool_calls=[{"name": name, "args": args, "id": f"call_{len(tool_msgs)}"}]
        )

    if "search_web" not in done:
        return call("search_web", query=question)
    urls = json.loads(next(str(m.content) for m in tool_msgs if m.name == "search_web"))
    fetched = done.count("fetch_page")
    if fetched < len(urls):
        return call("fetch_page", url=urls[fetched])
    if "take_notes" not in done:
        facts = [str(m.content).split(": ", 1)[-1] for m in tool_msgs if m.name == "fetch_page"]
        return call("take_notes", notes=" ".join(facts))
    return AIMessage(
        content="Report: PostgreSQL survives crashes with its write-ahead log: a commit is "
        "durable once its WAL record is fsynced, and recovery replays the WAL from the "
        "last checkpoint. " + str(tool_msgs[-1].content)
    )


def build_agent(saver: Any, workdir: Path, label: str) -> Any:
    """The agent graph; executions are logged to ``workdir/<label>-calls.jsonl``."""
    from langchain.agents import create_agent
    from langchain_core.messages import HumanMessage, SystemMessage
    from langchain_core.tools import tool

    from langgraph_actionckpt import action

    calls = workdir / f"{label}-calls.jsonl"
    model = get_model(script=research_script, calls_file=workdir / f"{label}-llm.jsonl")

    @tool
    def search_web(query: str) -> str:
        """Search the web; returns a JSON list of result URLs."""
        time.sleep(0.25)
        urls = [f"https://docs.example.org/postgres/{k}" for k in PAGES]
        log_call(calls, kind="tool", name="search_web", key=query)
        print(f"    [pid {os.getpid()}] search_web -> {len(urls)} results", flush=True)
        return json.dumps(urls)

    @action(name="download")
    def download(url: str) -> str:
        """The HTTP GET (slow, and billed by the byte in real life)."""
        time.sleep(0.35)
        log_call(calls, kind="download", name="download", key=url)
        print(f"    [pid {os.getpid()}] downloaded {url}", flush=True)
        page = PAGES.get(url.rsplit("/", 1)[-1], "Nothing here.")
        return f"<html><body>{page}</body></html>"

    @tool
    def fetch_page(url: str) -> str:
        """Fetch a web page and extract its key facts."""
        html = download(url)
        time.sleep(0.4)  # parse the HTML
        text = html.removeprefix("<html><body>").removesuffix("</body></html>")
        facts = model.invoke(
            [
                SystemMessage("Extract the key fact of this page in one sentence."),
                HumanMessage(text),
            ]
        )
        time.sleep(0.4)  # store the facts (the crash hits here on the second page)
        log_call(calls, kind="tool", name="fetch_page", key=url)
        print(f"    [pid {os.getpid()}] fetch_page extracted facts of {url}", flush=True)
        return f"{url}: {facts.content}"

    @tool
    def take_notes(notes: str) -> str:
        """Save research notes."""
        time.sleep(0.2)
        (workdir / f"{label}-notes.txt").write_text(notes, encoding="utf-8")
        log_call(calls, kind="tool", name="take_notes", key=notes[:40])
        print(f"    [pid {os.getpid()}] take_notes ({len(notes.split())} words)", flush=True)
        return f"saved {len(notes.split())} words of notes"

    return create_agent(
        model, [search_web, fetch_page, take_notes], system_prompt=SYSTEM, checkpointer=saver
    )


def run(dsn: str, schema: str, thread: str, workdir: Path, label: str, *, resume: bool) -> Any:
    """Run (or resume) the agent on a thread; returns the final state values."""
    from langgraph_actionckpt import ActionCallbackHandler, ActionSaver

    with ActionSaver.from_conn_string(dsn, schema=schema) as saver:
        saver.setup()
        agent = build_agent(saver, workdir, label)
        config = {
            "configurable": {"thread_id": thread},
            "callbacks": [ActionCallbackHandler(saver)],
        }
        inputs = None if resume else {"messages": [{"role": "user", "content": QUESTION}]}
        agent.invoke(inputs, config)
        return agent.get_state(config).values


# ----------------------------------------------------------- the crash point


def second_page_extracted(dsn: str, schema: str, thread: str) -> bool:
    """The kill condition: the second page is downloaded and its facts extracted.

    Completed LLM calls by then: five (three model turns, choosing search_web,
    fetch_page and fetch_page, and the extractions of the first two pages).
    """
    return (
        count_actions(dsn, schema, thread, name="download") >= 2
        and count_actions(dsn, schema, thread, action_type="llm_completion") >= 5
    )


# ---------------------------------------------------------------- tallies


@dataclass
class Tally:
    """Finished work that was not executed again, by kind."""

    llm_calls: int = 0
    tool_calls: int = 0
    functions: int = 0
    tokens: int = 0

    def add(self, a: Any) -> None:
        if a.action_type == "llm_completion":
            self.llm_calls += 1
            self.tokens += a.total_tokens or 0
        elif a.action_type == "tool_call":
            self.tool_calls += 1
        elif a.action_type == "function":
            self.functions += 1

    @property
    def cost(self) -> float:
        """What the tokens would have cost at ``PRICE_PER_1K_TOKENS``."""
        return self.tokens / 1000 * PRICE_PER_1K_TOKENS

    def describe(self) -> str:
        return (
            f"{self.llm_calls} LLM calls, {self.tool_calls} tool calls, "
            f"{self.functions} @action calls, {self.tokens} tokens "
            f"(${self.cost:.6f} at an assumed ${PRICE_PER_1K_TOKENS * 1000:.2f} per 1M tokens)"
        )


def tallies(done_before: dict[str, Any], after: list[Any]) -> tuple[Tally, Tally]:
    """``(restored by the checkpoint, served by the action log)`` for a resumed thread.

    ``done_before``: the thread's completed actions at the crash, by key; ``after``:
    its actions once the resume finished. An action served by the log has its
    ``replayed`` count raised; one that completed before the crash and was neither
    served nor executed again sat inside a node whose result the checkpoint held.
    """
    restored, served = Tally(), Tally()
    for a in after:
        if a.action_type not in WORK_TYPES:
            continue
        if a.replayed:
            served.add(a)
        elif a.action_id in done_before:
            restored.add(a)
    return restored, served


# ------------------------------------------------------------------- main


def _summary(actions: list[Any]) -> str:
    from collections import Counter

    counts = Counter(f"{a.action_type} {a.name}" for a in actions)
    return ", ".join(f"{n}x {k}" for k, n in sorted(counts.items()))


def main(argv: list[str] | None = None) -> int:
    args = example_args(__doc__, argv)
    dsn = resolve_dsn(args.dsn)
    thread = args.thread or new_thread_id("research")
    workdir = workdir_for(thread, args.workdir)

    if args.child:  # the process that is going to be killed
        run(dsn, args.schema, thread, workdir, "crash", resume=False)
        return 0

    from langgraph_actionckpt import ActionSaver

    print(
        f"thread {thread!r} in schema {args.schema!r}; model: "
        f"{'ChatOpenAI (real)' if using_real_model() else 'ScriptedChatModel (offline)'}"
    )
    with ActionSaver.from_conn_string(dsn, schema=args.schema) as saver:
        saver.setup()

    # 1. run in a child process, SIGKILL it while it works on the second page
    print("\n1. running the agent in a child process ...")

    t0 = time.monotonic()
    rc = run_child_and_kill(
        [
            os.path.abspath(__file__),
            "--child",
            "--dsn",
            dsn,
            "--schema",
            args.schema,
            "--thread",
            thread,
            "--workdir",
            str(workdir),
        ],
        lambda: second_page_extracted(dsn, args.schema, thread),
    )
    crash_after = time.monotonic() - t0
    if rc != -9:
        print(child_exit_hint(rc, "the second page's facts were extracted"))
        return 1
    print(f"   child killed with SIGKILL after {crash_after:.1f}s: returncode={rc}")

    with ActionSaver.from_conn_string(dsn, schema=args.schema) as saver:
        before = {a.action_id: a for a in saver.list_actions(thread)}
    done_before = {k: a for k, a in before.items() if a.status == "completed"}
    # (node rows are left out: the package leaves those of Send tasks "running")
    inflight = [
        a for a in before.values() if a.status in ("pending", "running") and a.action_type != "node"
    ]
    print(
        f"   the log holds {len(done_before)} completed actions; in flight at the kill: "
        + (", ".join(f"{a.action_type} {a.name}" for a in inflight) or "none")
    )

    # 2. resume in this process, same thread id
    print("\n2. resuming the same thread in this process (graph.invoke(None, config)) ...")
    t1 = time.monotonic()
    resumed = run(dsn, args.schema, thread, workdir, "crash", resume=True)
    resume_s = time.monotonic() - t1

    # 3. the same question, uninterrupted, for reference
    print("\n3. the same question, uninterrupted, on another thread ...")
    t2 = time.monotonic()
    reference = run(dsn, args.schema, thread + "-reference", workdir, "reference", resume=False)
    reference_s = time.monotonic() - t2

    with ActionSaver.from_conn_string(dsn, schema=args.schema) as saver:
        after = saver.list_actions(thread)
    print()
    print_actions(
        after,
        f"actions of {thread} after the resume (LLM, tool and function rows)",
        types=("llm_completion", "tool_call", "function"),
    )

    # what was replayed, what was executed
    work = [a for a in after if a.action_type in WORK_TYPES]
    replayed = [a for a in work if a.replayed]
    executed = [a for a in work if a.action_id not in done_before]
    restored, served = tallies(done_before, after)
    print(
        f"\ncompleted before the crash, not executed again: "
        f"{len([a for a in work if a.action_id in done_before])}"
    )
    print(
        "  restored by LangGraph's checkpoint (results of finished nodes; any checkpointer):\n"
        f"    {restored.describe()}"
    )
    print(
        "  served by the action log (finished inside the node the crash cut short; "
        "this package):\n"
        f"    {served.describe()}"
    )
    for a in replayed:
        print(f"    replayed from the action log : {a.action_type} {a.name} (x{a.replayed})")
    print(f"executed after the resume: {len(executed)} ({_summary(executed)})")

    # nothing completed was executed twice: crashed + resumed == uninterrupted
    crash_calls = read_calls(workdir / "crash-calls.jsonl")
    ref_calls = read_calls(workdir / "reference-calls.jsonl")
    repeated = len(crash_calls) - len(ref_calls)
    in_child = sum(c["pid"] != os.getpid() for c in crash_calls)
    line = (
        f"tool/download executions: crashed child {in_child}"
        f" + resumed {len(crash_calls) - in_child}"
        f" = {len(crash_calls)}; uninterrupted run {len(ref_calls)}; repeated {repeated}"
    )
    print(line)
    if not using_real_model():
        llm_crash = read_calls(workdir / "crash-llm.jsonl")
        llm_ref = read_calls(workdir / "reference-llm.jsonl")
        repeated += len(llm_crash) - len(llm_ref)
        print(
            f"LLM executions: crashed + resumed {len(llm_crash)}; "
            f"uninterrupted run {len(llm_ref)}; repeated {len(llm_crash) - len(llm_ref)}"
        )

    # time the crash did not cost
    # a finished tool call's latency includes what ran inside it; count inner
    # actions only when their tool call was cut short (they were replayed)
    finished_tasks = {a.task_id for a in done_before.values() if a.action_type == "tool_call"}
    saved_s = sum(
        (a.latency_ms or 0) / 1000
        for a in done_before.values()
        if a.action_type == "tool_call"
        or (a.action_type in ("llm_completion", "function") and a.task_id not in finished_tasks)
    )
    print(
        f"seconds of finished work not redone: {saved_s:.1f}s "
        f"(resume took {resume_s:.1f}s; the uninterrupted run took {reference_s:.1f}s)"
    )

    # same final state as the uninterrupted run?
    a, b = normalize_messages(resumed["messages"]), normalize_messages(reference["messages"])
    if using_real_model():  # real LLM text varies run to run: compare the steps taken
        a = [(m[0], tuple(c[0] for c in m[2])) for m in a]
        b = [(m[0], tuple(c[0] for c in m[2])) for m in b]
    same = a == b and repeated == 0
    print(f"\nfinal answer: {resumed['messages'][-1].content[:100]}...")
    print(f"final state matches an uninterrupted run: {'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())

"""An email is in flight when the process is SIGKILLed: was it sent? Check, resolve, never twice.

The story
---------
An agent drafts an email with the LLM and sends it. Sending is *not
idempotent*: doing it twice means the customer gets two emails. So the send is
declared ``@action(idempotent=False)``: its intent row is durable in
PostgreSQL before the mail server is contacted, and the action's idempotency
key (``current_action()``) travels with the message.

1. A child process runs the agent. The mail server (a local outbox directory)
   accepts the message, and the child is killed with ``SIGKILL`` while it waits
   for the server's reply: the email left, but the log never heard back.
2. Resuming the thread does not guess. Re-sending could duplicate the email,
   skipping could lose it, so the run stops with ``InFlightActionError``
   carrying the idempotency key.
3. A person (or code) looks the key up in the mail server's outbox, finds the
   message, and records the outcome:
   ``saver.resolve_action(thread, key, output=message_id)`` - "it was sent".
   (Had the outbox no such message: ``saver.resolve_action(thread, key,
   retry=True)`` allows one more execution.)
4. The resumed run receives the recorded result and finishes. The outbox holds
   exactly one email.

    python examples/send_email.py [--dsn DSN] [--schema S] [--thread T]
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, TypedDict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import (
    child_exit_hint,
    example_args,
    get_model,
    new_thread_id,
    print_actions,
    resolve_dsn,
    run_child_and_kill,
    workdir_for,
)

TO = "customer@example.com"
SUBJECT = "Your refund was approved"


class MailServer:
    """A local "SMTP server": one JSON file per accepted message in ``outbox/``.

    It records the ``Idempotency-Key`` header of every message, so a client can
    ask later whether a message with a given key was accepted.
    """

    def __init__(self, root: Path, connect_delay: float | None = None) -> None:
        self.outbox = root / "outbox"
        self.outbox.mkdir(parents=True, exist_ok=True)
        # seconds spent "connecting" before the message is accepted (a crash in
        # there means the email never left: the case for retry=True)
        self.connect_delay = (
            float(os.environ.get("MAIL_CONNECT_DELAY", "0"))
            if connect_delay is None
            else connect_delay
        )

    def send(self, to: str, subject: str, body: str, idempotency_key: str) -> str:
        if self.connect_delay:
            print(f"    [pid {os.getpid()}] connecting to the mail server ...", flush=True)
            time.sleep(self.connect_delay)
        message_id = "<" + hashlib.sha1(idempotency_key.encode()).hexdigest()[:12] + "@mail.local>"
        msg = {
            "message_id": message_id,
            "idempotency_key": idempotency_key,
            "to": to,
            "subject": subject,
            "body": body,
            "accepted_at": time.time(),
        }
        path = self.outbox / f"{time.time_ns()}.json"
        # written aside, then renamed: a reader never sees half a message
        part = path.with_suffix(".part")
        part.write_text(json.dumps(msg), encoding="utf-8")
        os.replace(part, path)
        os.sync()
        print(
            f"    [pid {os.getpid()}] mail server accepted {message_id}; waiting for 250 OK ...",
            flush=True,
        )
        time.sleep(5)  # the slow "250 OK" - the process gets killed in here
        return message_id

    def messages(self) -> list[dict[str, Any]]:
        files = sorted(self.outbox.glob("*.json"))
        return [json.loads(p.read_text(encoding="utf-8")) for p in files]

    def find(self, idempotency_key: str) -> dict[str, Any] | None:
        return next((m for m in self.messages() if m["idempotency_key"] == idempotency_key), None)


class State(TypedDict, total=False):
    request: str
    body: str
    message_id: str


def draft_script(messages: list[Any], kwargs: dict[str, Any]) -> Any:
    from langchain_core.messages import AIMessage

    return AIMessage(
        content="Dear customer, your refund of $42.00 was approved and will "
        "reach your card within 3 business days. Best regards, Support"
    )


def build(saver: Any, mail: MailServer) -> Any:
    from langchain_core.messages import HumanMessage
    from langgraph.graph import END, START, StateGraph

    from langgraph_actionckpt import action, current_action

    model = get_model(script=draft_script)

    @action(idempotent=False, name="send_email")
    def send_email(to: str, subject: str, body: str) -> str:
        # current_action() is this send's idempotency key: it travels with the message
        return mail.send(to, subject, body, idempotency_key=current_action() or "")

    def draft(state: State) -> State:
        reply = model.invoke([HumanMessage(f"Write a short email: {state['request']}")])
        return {"body": str(reply.content)}

    def send(state: State) -> State:
        return {"message_id": send_email(TO, SUBJECT, state["body"])}

    g = StateGraph(State)
    g.add_node("draft", draft)
    g.add_node("send", send)
    g.add_edge(START, "draft")
    g.add_edge("draft", "send")
    g.add_edge("send", END)
    return g.compile(checkpointer=saver)


def run(dsn: str, schema: str, thread: str, mail: MailServer, *, resume: bool) -> State:
    from langgraph_actionckpt import ActionCallbackHandler, ActionSaver

    with ActionSaver.from_conn_string(dsn, schema=schema) as saver:
        saver.setup()
        graph = build(saver, mail)
        config = {
            "configurable": {"thread_id": thread},
            "callbacks": [ActionCallbackHandler(saver)],
        }
        inputs = None if resume else {"request": "tell the customer the refund was approved"}
        return graph.invoke(inputs, config)


def main(argv: list[str] | None = None) -> int:
    args = example_args(__doc__, argv)
    dsn = resolve_dsn(args.dsn)
    thread = args.thread or new_thread_id("email")
    workdir = workdir_for(thread, args.workdir)
    mail = MailServer(workdir)

    if args.child:
        run(dsn, args.schema, thread, mail, resume=False)
        return 0

    from langgraph_actionckpt import ActionSaver, InFlightActionError

    print(f"thread {thread!r}; outbox {mail.outbox}")
    print("\n1. the agent drafts and sends the email in a child process ...")
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
        lambda: len(mail.messages()) > 0,  # the server accepted it: kill before the reply
    )
    if rc != -9:
        print(child_exit_hint(rc, "the kill"))
        return 1
    print(f"   child killed with SIGKILL during the send: returncode={rc}")

    print("\n2. resume the thread ...")
    try:
        run(dsn, args.schema, thread, mail, resume=True)
        print("   the resume did not stop: the send was executed blindly")
        return 1
    except InFlightActionError as err:
        print(f"   InFlightActionError: {err}")
        key = err.action_id

    with ActionSaver.from_conn_string(dsn, schema=args.schema) as saver:
        print_actions(
            saver.list_actions(thread),
            "the action log: the send is still 'running' (outcome unknown)",
            types=("llm_completion", "function"),
        )

        print("\n3. ask the mail server whether a message with this idempotency key was accepted")
        found = mail.find(key)
        if found is not None:
            print(f"   yes: {found['message_id']} to {found['to']} - mark the action done with it:")
            print(f"   saver.resolve_action({thread!r}, key, output={found['message_id']!r})")
            saver.resolve_action(
                thread,
                key,
                output=found["message_id"],
                note="found in the outbox by idempotency key",
            )
        else:
            print("   no: it never left - allow one more execution:")
            print(f"   saver.resolve_action({thread!r}, key, retry=True)")
            saver.resolve_action(thread, key, retry=True)
    print(
        "   (the alternative, when the outbox has no such message: "
        "saver.resolve_action(thread, key, retry=True) sends it once more)"
    )

    print("\n4. resume again ...")
    final = run(dsn, args.schema, thread, mail, resume=True)
    sent = mail.messages()
    print(f"   final state: message_id={final.get('message_id')}")
    print(f"   emails in the outbox: {len(sent)}")
    ok = len(sent) == 1 and final.get("message_id") == sent[0]["message_id"]
    print(f"sent exactly once: {'yes' if ok else 'NO'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

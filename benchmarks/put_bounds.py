"""How close any put could come to the same-rows floor: ours with its row building replayed.

Run from the repository root (needs ``valgrind``)::

    python -m benchmarks.put_bounds --dsn postgresql://postgres@127.0.0.1:5432/test
    python -m benchmarks.put_bounds --combos sync-sync,sync-async --invokes 10

Counts instructions per superstep as ``benchmarks.instructions`` does (each side in its own
process under callgrind, only the measured invokes of the 30-node chain) for five sides:

* ``floor``: the same-rows floor (``benchmarks.same_rows``' prepared statement);
* ``layers``: ours, with every row a put and a ``put_writes`` call builds made for free: the
  first thread's rows are built by ours and kept, every later thread sends those rows again
  with its own thread id (no serializing, compressing, escaping, checking or parameter
  dicts; the saver, its held-writes buffer, the driver and the send all run as shipped).
  What the layers around the rows cost, whatever builds them;
* ``+serialize``: ``layers`` plus the serializing every saver of these rows does per put: the
  checkpoint and the changed channel values (msgpack), the metadata (JSON), the writes' values;
* ``+compress``: ``+serialize`` plus Zstandard of the checkpoint and values, as ours stores
  them (the ``operator.add`` storage bound needs it: ``python -m benchmarks.storage_breakdown``);
* ``ours``: as shipped.

So ``+compress`` / ``floor`` is the least ours could reach with a row builder that costs
nothing beyond the work the stored bytes need (compiled or not), and ``layers`` / ``floor`` what
the layers alone cost.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks import instructions
from benchmarks.bench_saver import CHAIN_NODES
from benchmarks.savers import BenchEnv, scratch_database, server_dsn, server_parser
from langgraph_actionckpt.checkpoints import core, held, plans_write
from langgraph_actionckpt.checkpoints.codec import Codec, json_text
from langgraph_actionckpt.checkpoints.pending import WriteCall
from langgraph_actionckpt.db.plan import Op

CHILD_MODULE = "benchmarks.put_bounds"
BOUNDS = ("layers", "+serialize", "+compress")
SIDES = ("floor", *BOUNDS, "ours")


class Replay:
    """Ours' ``plan_put`` and ``prepare_writes``, built once by the first thread, then replayed.

    Args:
        work: ``layers``: replay only; ``+serialize`` / ``+compress``: also serialize (and
            compress) what the replayed put stores, results thrown away.
    """

    def __init__(self, work: str) -> None:
        self.serialize = work != "layers"
        self.compress = work == "+compress"
        self.first: str | None = None
        self.ops: list[Op] = []
        self.calls: list[WriteCall | None] = []
        self.puts: Counter[str] = Counter()
        self.writes: Counter[str] = Counter()
        # plans_write's own functions, which build the first thread's rows
        self._plan_put, self._prepare = plans_write.plan_put, plans_write.prepare_writes

    def install(self) -> None:
        """Stand in for the shipped functions where the saver calls them."""
        core.plan_put = self.plan_put  # type: ignore[assignment]
        held.prepare_writes = self.prepare_writes  # type: ignore[assignment]

    def _recording(self, thread_id: str) -> bool:
        if self.first is None:
            self.first = thread_id
        return thread_id == self.first

    def plan_put(
        self,
        queries: Any,
        action_queries: Any,
        codec: Codec,
        config: Any,
        checkpoint: Any,
        metadata: Any,
        new_versions: Any,
        held_calls: Sequence[WriteCall] = (),
        fence: int | None = None,
        where: tuple[str, str] | None = None,
    ) -> Iterator[Op]:
        assert where is not None
        thread_id = where[0]
        at = self.puts[thread_id]
        self.puts[thread_id] += 1
        if self._recording(thread_id):
            plan = self._plan_put(
                queries, action_queries, codec, config, checkpoint, metadata,
                new_versions, held_calls, fence, where,
            )  # fmt: skip
            op = next(plan)
            self.ops.append(op)
            try:
                plan.send((yield op))
            except StopIteration as stop:
                return stop.value
            raise AssertionError("a put of more than one statement")
        if self.serialize:
            self._serialize_put(codec, config, checkpoint, metadata, new_versions)
        op = self.ops[at]
        params = dict(op.params) if isinstance(op.params, Mapping) else {}
        params["thread_id"] = thread_id
        yield Op(op.query, params, prepare=True, lock_key=thread_id)
        checkpoint_id = checkpoint["id"]
        conf = {"thread_id": thread_id, "checkpoint_ns": "", "checkpoint_id": checkpoint_id}
        return plans_write.PutResult(
            {"configurable": conf}, checkpoint_id, (thread_id, "", checkpoint_id), None, []
        )

    def _serialize_put(
        self, codec: Codec, config: Any, checkpoint: Any, metadata: Any, new_versions: Any
    ) -> None:
        values = checkpoint.get("channel_values", {})
        stored = {k: v for k, v in checkpoint.items() if k != "channel_values"}
        stored["channel_values"] = {c: v for c, v in values.items() if plans_write._inlinable(v)}
        self._dump(codec, stored, checkpoint=True)
        for channel in new_versions:
            if channel in values and not plans_write._inlinable(values[channel]):
                self._dump(codec, values[channel])
        json_text(plans_write.merge_metadata(config, metadata))

    def _dump(self, codec: Codec, value: Any, *, checkpoint: bool = False) -> None:
        dumped = codec.dumps(value, "value")
        if self.compress:
            codec.pack(*dumped, checkpoint=checkpoint)

    def prepare_writes(
        self,
        codec: Codec,
        config: Any,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
        **kw: Any,
    ) -> WriteCall | None:
        where = kw["where"]
        thread_id = where[0]
        at = self.writes[thread_id]
        self.writes[thread_id] += 1
        if self._recording(thread_id):
            call = self._prepare(codec, config, writes, task_id, task_path, **kw)
            self.calls.append(call)
            return call
        if self.serialize:
            for _channel, value in writes:
                self._dump(codec, value)
        kept = self.calls[at]
        if kept is None:
            return None
        parent = config["configurable"].get("checkpoint_id")
        return WriteCall(kept.rows, kept.special, kept.actions, None, thread_id, parent)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "--child":
        side, combo, dsn, invokes = argv[1], argv[2], argv[3], int(argv[4])
        Replay(side).install()
        world, durability = combo.split("-")
        if world == "sync":
            instructions._child_sync(dsn, "ours", durability, invokes)
        else:
            asyncio.run(instructions._child_async(dsn, "ours", durability, invokes))
        return 0
    parser = server_parser("benchmarks.put_bounds", __doc__)
    parser.add_argument("--invokes", type=int, default=10, help="measured invokes per side")
    parser.add_argument(
        "--combos",
        default=",".join(instructions.COMBOS),
        help="comma list of " + ", ".join(instructions.COMBOS),
    )
    args = parser.parse_args(argv)
    env = BenchEnv(server_dsn(args))
    steps = args.invokes * instructions.SUPERSTEPS
    print(f"instructions per superstep, {args.invokes} invokes of the {CHAIN_NODES}-node chain;")
    print("in brackets: / floor")
    print(f"{'combination':<13}" + "".join(f"{s:>20}" for s in SIDES))
    with tempfile.TemporaryDirectory(prefix="bench-bounds-") as tmp:
        for combo in args.combos.split(","):
            counts = {}
            for side in SIDES:
                module = CHILD_MODULE if side in BOUNDS else instructions.CHILD_MODULE
                out = Path(tmp) / f"{combo}{side}"
                with scratch_database(env) as dsn:
                    total = instructions._count(dsn, side, combo, args.invokes, out, module)
                counts[side] = total / steps
            floor = counts["floor"]
            cells = "".join(f"{f'{n:,.0f} ({n / floor:.3f})':>20}" for n in counts.values())
            print(f"{combo:<13}{cells}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

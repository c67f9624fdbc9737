"""Money from tokens: a price table per model, and what replay saved.

Prices are US dollars per million tokens (input, cached input, output), as the
providers publish them. The defaults cover common OpenAI models and can be
replaced or extended per call (``PriceTable({...})``), or from a JSON file named
by ``ACTIONCKPT_PRICES`` or ``actionckpt timeline --prices FILE``:
``{"model": [input, cached_input, output], ...}``; the key ``"*"`` prices every
model the table does not name (a local or scripted model, an assumed price). A
model missing from the table costs ``None`` (unknown), never zero.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.errors import ConfigurationError

__all__ = ["DEFAULT_PRICES", "ModelPrice", "PriceTable", "Spend", "spend"]


@dataclass(frozen=True, slots=True)
class ModelPrice:
    """US dollars per million tokens."""

    input: float
    cached_input: float
    output: float


DEFAULT_PRICES: dict[str, ModelPrice] = {
    "gpt-4o": ModelPrice(2.50, 1.25, 10.00),
    "gpt-4o-mini": ModelPrice(0.15, 0.075, 0.60),
    "gpt-4.1": ModelPrice(2.00, 0.50, 8.00),
    "gpt-4.1-mini": ModelPrice(0.40, 0.10, 1.60),
    "gpt-4.1-nano": ModelPrice(0.10, 0.025, 0.40),
    "o3": ModelPrice(2.00, 0.50, 8.00),
    "o4-mini": ModelPrice(1.10, 0.275, 4.40),
    "gpt-5": ModelPrice(1.25, 0.125, 10.00),
    "gpt-5-mini": ModelPrice(0.25, 0.025, 2.00),
    "gpt-5-nano": ModelPrice(0.05, 0.005, 0.40),
}
"""Published list prices (USD per 1M tokens) of common OpenAI models."""


class PriceTable:
    """Prices by model name; a dated suffix (``gpt-4o-2024-08-06``) falls back to its base.

    Args:
        prices: Model name to :class:`ModelPrice` or ``(input, cached_input, output)``.
            ``None``: the defaults, updated from ``ACTIONCKPT_PRICES`` if set.
    """

    def __init__(
        self, prices: Mapping[str, ModelPrice | tuple[float, float, float]] | None = None
    ) -> None:
        table: dict[str, ModelPrice] = {}
        if prices is None:
            table.update(DEFAULT_PRICES)
            path = os.environ.get("ACTIONCKPT_PRICES")
            if path:
                prices = _read(Path(path))
        for name, price in (prices or {}).items():
            table[name] = price if isinstance(price, ModelPrice) else ModelPrice(*price)
        self._prices = table

    @classmethod
    def from_file(cls, path: str | Path) -> PriceTable:
        """The defaults, updated from a JSON price file (``ACTIONCKPT_PRICES`` is not read).

        Raises:
            ConfigurationError: The file is not ``{"model": [input, cached, output]}``.
        """
        return cls({**DEFAULT_PRICES, **_read(Path(path))})

    def price(self, model: str | None) -> ModelPrice | None:
        """The price of ``model``, or None when unknown."""
        if model and model in self._prices:
            return self._prices[model]
        # "gpt-4o-mini-2024-07-18" -> "gpt-4o-mini", the longest known prefix
        best = max(
            (m for m in self._prices if model and model.startswith(m + "-")), key=len, default=None
        )
        return self._prices[best] if best else self._prices.get("*")

    def cost(self, record: ActionRecord) -> float | None:
        """The money one LLM row cost (or would have cost), None when unknown."""
        if record.action_type != "llm_completion":
            return None
        price = self.price(record.model)
        if price is None or (record.input_tokens is None and record.output_tokens is None):
            return None
        cached = record.cached_tokens or 0
        fresh = max((record.input_tokens or 0) - cached, 0)
        return (
            fresh * price.input
            + cached * price.cached_input
            + (record.output_tokens or 0) * price.output
        ) / 1_000_000


def _read(path: Path) -> dict[str, tuple[float, float, float]]:
    """A price file: ``{"model": [input, cached_input, output]}``, USD per 1M tokens."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return {str(name): (float(p[0]), float(p[1]), float(p[2])) for name, p in dict(raw).items()}
    except (OSError, ValueError, TypeError, IndexError, KeyError) as exc:
        raise ConfigurationError(
            f'price file {path}: expected {{"model": [input, cached_input, output]}} in USD '
            f"per 1M tokens ({exc})"
        ) from exc


@dataclass(slots=True)
class Spend:
    """Money spent by a set of actions, and what replay saved.

    Attributes:
        spent: Cost of the LLM calls that ran live (USD).
        saved: Cost of the calls served from the log instead, once per serving (USD).
        unknown: LLM rows whose model has no price or whose tokens are unknown.
        priced: LLM rows with a price and tokens (``spent`` and ``saved`` add these up).
        tokens_spent: Tokens of the live calls.
        tokens_saved: Tokens not spent again thanks to replay.
    """

    spent: float = 0.0
    saved: float = 0.0
    unknown: int = 0
    priced: int = 0
    tokens_spent: int = 0
    tokens_saved: int = 0


def spend(records: Iterable[ActionRecord], prices: PriceTable | None = None) -> Spend:
    """Add up what the LLM rows cost and what serving them from the log saved."""
    table = prices or PriceTable()
    out = Spend()
    for record in records:
        if record.action_type != "llm_completion" or record.status != "completed":
            continue
        cost = table.cost(record)
        tokens = record.total_tokens or 0
        out.tokens_spent += tokens
        out.tokens_saved += tokens * record.replayed
        if cost is None:
            out.unknown += 1
            continue
        out.priced += 1
        out.spent += cost
        out.saved += cost * record.replayed
    return out

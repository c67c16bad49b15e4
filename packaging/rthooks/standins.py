"""Runtime hook: stand-ins for the two SciPy / scikit-learn names sentence-transformers imports.

sentence-transformers imports ``sklearn.metrics.pairwise_distances`` (``util/similarity.py``)
and ``scipy.sparse.coo_matrix`` (``util/tensor.py``) when it is imported, for its sparse-vector
helpers (manhattan similarity of sparse embeddings, a COO export), which Footnote never calls:
it embeds with dense models and compares vectors in LanceDB and NumPy. Those two imports load
most of SciPy and scikit-learn: 94 MiB of the bundle and ~2 s of the embedder's start-up. So
the bundle leaves both packages out (``footnote.spec``: ``STANDIN_PACKAGES``) and this hook,
which PyInstaller runs before the app in every process of the bundle, registers modules that
hold just those names. Calling one raises ImportError naming it. Any other import of scipy or
sklearn fails as it would without them installed (see ``install``).

``footnote.spec`` checks at build time that the default embedder loads and embeds with only
these stand-ins (real SciPy and scikit-learn blocked), and ``make package-test`` runs ingest,
search and ask through them. Standard library only.
"""

from __future__ import annotations

import importlib.machinery
import sys
import types

# module -> the names imported from it at run time (nothing else is provided)
STANDINS: dict[str, tuple[str, ...]] = {
    "scipy.sparse": ("coo_matrix",),
    "sklearn.metrics": ("pairwise_distances",),
}


def _left_out(qualname: str) -> object:
    def left_out(*_args: object, **_kwargs: object) -> None:
        raise ImportError(
            f"{qualname} is not in the Footnote bundle: SciPy and scikit-learn are left out "
            "(packaging/README.md)"
        )

    left_out.__name__ = left_out.__qualname__ = qualname.rsplit(".", 1)[-1]
    return left_out


def install() -> None:
    """Register the stand-ins under their full names, and None for their packages.

    ``from scipy.sparse import coo_matrix`` finds ``scipy.sparse`` in ``sys.modules`` and never
    imports ``scipy``. ``None`` there makes ``import scipy`` (or ``scipy.optimize``) raise
    ModuleNotFoundError and ``importlib.util.find_spec("scipy")`` return None, so libraries that
    ask whether SciPy is installed (transformers' ``is_scipy_available``) are told it is not.
    """
    for name, attrs in STANDINS.items():
        if name in sys.modules:
            continue
        module = types.ModuleType(name, "Footnote bundle stand-in (packaging/rthooks/standins.py)")
        module.__spec__ = importlib.machinery.ModuleSpec(name, None)
        for attr in attrs:
            setattr(module, attr, _left_out(f"{name}.{attr}"))
        sys.modules[name] = module
        sys.modules.setdefault(name.partition(".")[0], None)


install()

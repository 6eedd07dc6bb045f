"""Arrays that compiled code reads or writes, owned together with their addresses.

Compiled functions take raw addresses. An address outlives nothing: if the array behind it is
freed, the next call reads or writes freed memory. So an address is never stored on its own: a
:class:`Pinned` holds the arrays and hands out their addresses (taken once: ``ndarray.ctypes.data``
costs about a microsecond), and whoever calls compiled code keeps the ``Pinned`` (not its
addresses) alive for as long as a call may use them. A ``Pinned`` pickles as its arrays: the
addresses are taken anew where it is unpickled.
"""

from __future__ import annotations

import numpy as np

__all__ = ["Pinned"]


class Pinned:
    """Named C-contiguous arrays and their addresses, alive together."""

    __slots__ = ("_addresses", "_arrays")

    def __init__(self, **arrays: np.ndarray):
        self._arrays = {name: _contiguous(a) for name, a in arrays.items()}
        self._addresses = {name: int(a.ctypes.data) for name, a in self._arrays.items()}

    def __getitem__(self, name: str) -> np.ndarray:
        return self._arrays[name]

    def address(self, name: str) -> int:
        """Address of array ``name``; valid while this object is alive."""
        return self._addresses[name]

    def addresses(self, *names: str) -> tuple[int, ...]:
        return tuple(self._addresses[n] for n in names)

    def __reduce__(self):
        return (_rebuild, (self._arrays,))


def _rebuild(arrays: dict[str, np.ndarray]) -> Pinned:
    # an unpickled array may be a read-only view of the received bytes: compiled code may write
    return Pinned(**{name: np.require(a, requirements="CW") for name, a in arrays.items()})


def _contiguous(a: np.ndarray) -> np.ndarray:
    if not isinstance(a, np.ndarray) or not a.flags.c_contiguous:
        raise TypeError("Pinned takes C-contiguous numpy arrays (copy with np.ascontiguousarray)")
    return a

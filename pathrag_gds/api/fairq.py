"""Search slots handed out fairly: in turn between owners (tokens), in arrival order within one.

:class:`FairSlots` replaces a semaphore polled by every waiter (where whichever waiter polled first
after a release won, so an older waiter could time out while a newer one passed, and a token that
queued 100 searches held 100 of every 101 chances). Waiters queue per owner; a released slot goes
straight to the first waiter of the waiting owner served longest ago (never served: first), so a
token with one search waits for at most one release per other waiting token, whatever their queue
lengths: behind a token that floods, a newcomer gets the next slot that frees.

Example:
    >>> slots = FairSlots(1)
    >>> slots.acquire("heavy", check=lambda: None)
    >>> slots.waiting()
    {}
    >>> slots.release()
"""

from __future__ import annotations

import threading
from collections import OrderedDict, deque
from collections.abc import Callable

#: Seconds between a waiter's checks of its `check` callback (cancel, time limit, database down).
CHECK_INTERVAL_S = 0.1


class _Waiter:
    __slots__ = ("event", "granted", "owner")

    def __init__(self, owner: str) -> None:
        self.owner = owner
        self.event = threading.Event()
        self.granted = False


class FairSlots:
    """`capacity` slots; waiters served in turn per owner (least recently served first), in order within one.

    Args:
        capacity: slots held at once.
    """

    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1 (got {capacity})")
        self.capacity = capacity
        self._free = capacity
        self._lock = threading.Lock()
        #: owner -> its waiters in arrival order (owners in the order they began to wait)
        self._queues: OrderedDict[str, deque[_Waiter]] = OrderedDict()
        #: owner -> when it last got a slot (a grant counter); owners are tokens, so this stays small
        self._served: dict[str, int] = {}
        self._grants = 0

    def acquire(self, owner: str, check: Callable[[], None]) -> None:
        """Take a slot for `owner`, waiting for its turn; `check` runs while waiting and may raise.

        Raises:
            Exception: whatever `check` raises (cancelled, time limit, database down); the waiter
                leaves the queue, and a slot granted meanwhile passes to the next waiter.
        """
        with self._lock:
            if self._free > 0 and not self._queues:
                self._free -= 1
                self._note_served(owner)
                return
            waiter = _Waiter(owner)
            self._queues.setdefault(owner, deque()).append(waiter)
        try:
            while not waiter.event.wait(CHECK_INTERVAL_S):
                check()
        except BaseException:
            with self._lock:
                if waiter.granted:
                    self._hand_on()
                else:
                    queue = self._queues[owner]
                    queue.remove(waiter)
                    if not queue:
                        del self._queues[owner]
            raise

    def release(self) -> None:
        """Give a slot back: to the next owner's first waiter, or to the free pool."""
        with self._lock:
            self._hand_on()

    def _note_served(self, owner: str) -> None:
        self._grants += 1
        self._served[owner] = self._grants

    def _hand_on(self) -> None:
        """Pass one slot to the first waiter of the owner served longest ago (the lock is held)."""
        if not self._queues:
            self._free += 1
            return
        owner = min(self._queues, key=lambda o: self._served.get(o, 0))  # ties: the first to wait
        queue = self._queues[owner]
        waiter = queue.popleft()
        if not queue:
            del self._queues[owner]
        self._note_served(owner)
        waiter.granted = True
        waiter.event.set()

    def waiting(self) -> dict[str, int]:
        """Waiters per owner, in the order their turns come."""
        with self._lock:
            return {owner: len(queue) for owner, queue in self._queues.items()}

    @property
    def free(self) -> int:
        """Slots nobody holds."""
        return self._free

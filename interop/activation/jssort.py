"""``Array.prototype.sort(comparefn)`` exactly as V8 runs it, for comparators that are not consistent.

SillyTavern sorts world-info entries with ``(a, b) => b.order - a.order`` and RisuAI its
activations with ``b.priority - a.priority``; a missing or non-numeric field makes the
difference NaN, which the specification's SortCompare turns into +0 ("equal") although the
entry is not equal to its neighbours. The resulting order is then whatever the engine's
algorithm does with those answers: deterministic for a given engine and input order, but not
something a key function can express.

This module is an independent implementation of the TimSort that V8 uses since 7.0 (Chrome 70,
Node 11; ``third_party/v8/builtins/array-sort.tq``: CountAndMakeRun with strictly descending
runs reversed, binary insertion up to the minimum run length, the run-stack invariants of the
2015 fix, galloping with ``kMinGallopWins`` = 7 and the adaptive ``minGallop``). Every decision
is taken on ``compare(x, y) < 0`` after NaN has become 0, as V8 does. It is checked against
Node 20 (V8 11.3) on random inconsistent comparators (``tests/activation/test_jssort_node.py``).
Later V8 versions sort arrays shorter than 10 by plain binary insertion (no run detection);
with a consistent comparator both give the same order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

T = TypeVar("T")

MIN_GALLOP = 7


def min_run_length(n: int) -> int:
    """``ComputeMinRunLength``: n below 64 is itself, else 32..64 so that n / minrun is just below a power of 2."""
    r = 0
    while n >= 64:
        r |= n & 1
        n >>= 1
    return n + r


class _TimSort(Generic[T]):
    def __init__(self, items: Sequence[T], compare: Callable[[T, T], float]) -> None:
        self.a: list[T] = list(items)
        self.compare = compare
        self.min_gallop = MIN_GALLOP
        self.runs: list[list[int]] = []  # [base, length] of the pending runs

    def lt(self, x: T, y: T) -> bool:
        # SortCompare: NaN becomes +0, so "< 0" is false for it, like for 0.
        return self.compare(x, y) < 0

    # ---- runs -------------------------------------------------------------------------

    def count_run(self, lo: int, hi: int) -> int:
        """Length of the run at ``lo``: non-descending, or strictly descending (then reversed)."""
        a = self.a
        if lo + 1 == hi:
            return 1
        descending = self.lt(a[lo + 1], a[lo])
        length = 2
        previous = a[lo + 1]
        for i in range(lo + 2, hi):
            current = a[i]
            if self.lt(current, previous) != descending:
                break
            previous = current
            length += 1
        if descending:
            a[lo : lo + length] = a[lo : lo + length][::-1]
        return length

    def binary_insertion(self, lo: int, start: int, hi: int) -> None:
        """Insert a[start:hi] one by one into the sorted a[lo:start] (lo < start: a run is never empty)."""
        a = self.a
        for s in range(start, hi):
            pivot = a[s]
            left, right = lo, s
            while left < right:
                mid = left + ((right - left) >> 1)
                if self.lt(pivot, a[mid]):
                    right = mid
                else:
                    left = mid + 1
            a[left + 1 : s + 1] = a[left:s]
            a[left] = pivot

    # ---- galloping --------------------------------------------------------------------

    def gallop_left(self, key: T, arr: list[T], base: int, length: int, hint: int) -> int:
        """Offset k such that arr[base + k - 1] < key <= arr[base + k]."""
        last, ofs = 0, 1
        if self.lt(arr[base + hint], key):
            limit = length - hint
            while ofs < limit and self.lt(arr[base + hint + ofs], key):
                last, ofs = ofs, (ofs << 1) + 1
            ofs = min(ofs, limit)
            last, ofs = last + hint, ofs + hint
        else:
            limit = hint + 1
            while ofs < limit and not self.lt(arr[base + hint - ofs], key):
                last, ofs = ofs, (ofs << 1) + 1
            ofs = min(ofs, limit)
            last, ofs = hint - ofs, hint - last
        last += 1
        while last < ofs:
            m = last + ((ofs - last) >> 1)
            if self.lt(arr[base + m], key):
                last = m + 1
            else:
                ofs = m
        return ofs

    def gallop_right(self, key: T, arr: list[T], base: int, length: int, hint: int) -> int:
        """Offset k such that arr[base + k - 1] <= key < arr[base + k]."""
        last, ofs = 0, 1
        if self.lt(key, arr[base + hint]):
            limit = hint + 1
            while ofs < limit and self.lt(key, arr[base + hint - ofs]):
                last, ofs = ofs, (ofs << 1) + 1
            ofs = min(ofs, limit)
            last, ofs = hint - ofs, hint - last
        else:
            limit = length - hint
            while ofs < limit and not self.lt(key, arr[base + hint + ofs]):
                last, ofs = ofs, (ofs << 1) + 1
            ofs = min(ofs, limit)
            last, ofs = last + hint, ofs + hint
        last += 1
        while last < ofs:
            m = last + ((ofs - last) >> 1)
            if self.lt(key, arr[base + m]):
                ofs = m
            else:
                last = m + 1
        return ofs

    # ---- merging ----------------------------------------------------------------------

    def merge_at(self, i: int) -> None:
        a = self.a
        base_a, len_a = self.runs[i]
        base_b, len_b = self.runs[i + 1]
        self.runs[i][1] = len_a + len_b
        del self.runs[i + 1]
        k = self.gallop_right(a[base_b], a, base_a, len_a, 0)
        base_a += k
        len_a -= k
        if len_a == 0:
            return
        len_b = self.gallop_left(a[base_a + len_a - 1], a, base_b, len_b, len_b - 1)
        if len_b == 0:
            return
        if len_a <= len_b:
            _MergeLow(self, base_a, len_a, base_b, len_b).run()
        else:
            _MergeHigh(self, base_a, len_a, base_b, len_b).run()

    def invariant(self, n: int) -> bool:
        if n < 2:
            return True
        runs = self.runs
        return runs[n - 2][1] > runs[n - 1][1] + runs[n][1]

    def merge_collapse(self) -> None:
        runs = self.runs
        while len(runs) > 1:
            n = len(runs) - 2
            if not self.invariant(n + 1) or not self.invariant(n):
                if runs[n - 1][1] < runs[n + 1][1]:
                    n -= 1
                self.merge_at(n)
            elif runs[n][1] <= runs[n + 1][1]:
                self.merge_at(n)
            else:
                break

    def merge_force_collapse(self) -> None:
        runs = self.runs
        while len(runs) > 1:
            n = len(runs) - 2
            if n > 0 and runs[n - 1][1] < runs[n + 1][1]:
                n -= 1
            self.merge_at(n)

    def sort(self) -> list[T]:
        n = len(self.a)
        if n < 2:
            return self.a
        minrun = min_run_length(n)
        low, remaining = 0, n
        while remaining:
            length = self.count_run(low, low + remaining)
            if length < minrun:
                forced = min(minrun, remaining)
                self.binary_insertion(low, low + length, low + forced)
                length = forced
            self.runs.append([low, length])
            self.merge_collapse()
            low += length
            remaining -= length
        self.merge_force_collapse()
        return self.a


class _MergeLow(Generic[T]):
    """``MergeLow``: run A (the shorter, copied to a temporary array) merged with B from the left."""

    def __init__(self, ts: _TimSort[T], base_a: int, len_a: int, base_b: int, len_b: int) -> None:
        self.ts = ts
        self.temp = ts.a[base_a : base_a + len_a]
        self.len_a, self.len_b = len_a, len_b
        self.dest, self.ct, self.cb = base_a, 0, base_b

    def take_b(self) -> None:
        a = self.ts.a
        a[self.dest] = a[self.cb]
        self.dest += 1
        self.cb += 1
        self.len_b -= 1

    def take_a(self) -> None:
        self.ts.a[self.dest] = self.temp[self.ct]
        self.dest += 1
        self.ct += 1
        self.len_a -= 1

    def run(self) -> None:
        self.take_b()
        if self.len_b == 0:
            end = "succeed"
        elif self.len_a == 1:
            end = "copy_b"
        else:
            end = self.loop()
        a = self.ts.a
        if end == "succeed":
            if self.len_a > 0:
                a[self.dest : self.dest + self.len_a] = self.temp[self.ct : self.ct + self.len_a]
        else:
            a[self.dest : self.dest + self.len_b] = a[self.cb : self.cb + self.len_b]
            a[self.dest + self.len_b] = self.temp[self.ct]

    def loop(self) -> str:
        ts = self.ts
        min_gallop = ts.min_gallop
        while True:
            wins_a = wins_b = 0
            while True:  # one element at a time until a run wins min_gallop times in a row
                if ts.lt(ts.a[self.cb], self.temp[self.ct]):
                    self.take_b()
                    wins_b, wins_a = wins_b + 1, 0
                    if self.len_b == 0:
                        return "succeed"
                    if wins_b >= min_gallop:
                        break
                else:
                    self.take_a()
                    wins_a, wins_b = wins_a + 1, 0
                    if self.len_a == 1:
                        return "copy_b"
                    if wins_a >= min_gallop:
                        break
            min_gallop += 1
            first = True
            while wins_a >= MIN_GALLOP or wins_b >= MIN_GALLOP or first:
                first = False
                min_gallop = max(1, min_gallop - 1)
                ts.min_gallop = min_gallop
                end, wins_a, wins_b = self.gallop()
                if end:
                    return end
            min_gallop += 1
            ts.min_gallop = min_gallop

    def gallop(self) -> tuple[str, int, int]:
        ts, a = self.ts, self.ts.a
        wins_a = ts.gallop_right(a[self.cb], self.temp, self.ct, self.len_a, 0)
        if wins_a > 0:
            a[self.dest : self.dest + wins_a] = self.temp[self.ct : self.ct + wins_a]
            self.dest += wins_a
            self.ct += wins_a
            self.len_a -= wins_a
            if self.len_a == 1:
                return "copy_b", wins_a, 0
            if self.len_a == 0:  # only with an inconsistent comparator
                return "succeed", wins_a, 0
        self.take_b()
        if self.len_b == 0:
            return "succeed", wins_a, 0
        wins_b = ts.gallop_left(self.temp[self.ct], a, self.cb, self.len_b, 0)
        if wins_b > 0:
            a[self.dest : self.dest + wins_b] = a[self.cb : self.cb + wins_b]
            self.dest += wins_b
            self.cb += wins_b
            self.len_b -= wins_b
            if self.len_b == 0:
                return "succeed", wins_a, wins_b
        self.take_a()
        if self.len_a == 1:
            return "copy_b", wins_a, wins_b
        return "", wins_a, wins_b


class _MergeHigh(Generic[T]):
    """``MergeHigh``: run B (the shorter, copied to a temporary array) merged with A from the right."""

    def __init__(self, ts: _TimSort[T], base_a: int, len_a: int, base_b: int, len_b: int) -> None:
        self.ts = ts
        self.base_a = base_a
        self.temp = ts.a[base_b : base_b + len_b]
        self.len_a, self.len_b = len_a, len_b
        self.dest, self.ct, self.ca = base_b + len_b - 1, len_b - 1, base_a + len_a - 1

    def take_a(self) -> None:
        a = self.ts.a
        a[self.dest] = a[self.ca]
        self.dest -= 1
        self.ca -= 1
        self.len_a -= 1

    def take_b(self) -> None:
        self.ts.a[self.dest] = self.temp[self.ct]
        self.dest -= 1
        self.ct -= 1
        self.len_b -= 1

    def run(self) -> None:
        self.take_a()
        if self.len_a == 0:
            end = "succeed"
        elif self.len_b == 1:
            end = "copy_a"
        else:
            end = self.loop()
        a = self.ts.a
        if end == "succeed":
            if self.len_b > 0:
                start = self.dest - (self.len_b - 1)
                a[start : start + self.len_b] = self.temp[: self.len_b]
        else:
            self.dest -= self.len_a
            self.ca -= self.len_a
            a[self.dest + 1 : self.dest + 1 + self.len_a] = a[self.ca + 1 : self.ca + 1 + self.len_a]
            a[self.dest] = self.temp[self.ct]

    def loop(self) -> str:
        ts = self.ts
        min_gallop = ts.min_gallop
        while True:
            wins_a = wins_b = 0
            while True:
                if ts.lt(self.temp[self.ct], ts.a[self.ca]):
                    self.take_a()
                    wins_a, wins_b = wins_a + 1, 0
                    if self.len_a == 0:
                        return "succeed"
                    if wins_a >= min_gallop:
                        break
                else:
                    self.take_b()
                    wins_b, wins_a = wins_b + 1, 0
                    if self.len_b == 1:
                        return "copy_a"
                    if wins_b >= min_gallop:
                        break
            min_gallop += 1
            first = True
            while wins_a >= MIN_GALLOP or wins_b >= MIN_GALLOP or first:
                first = False
                min_gallop = max(1, min_gallop - 1)
                ts.min_gallop = min_gallop
                end, wins_a, wins_b = self.gallop()
                if end:
                    return end
            min_gallop += 1
            ts.min_gallop = min_gallop

    def gallop(self) -> tuple[str, int, int]:
        ts, a = self.ts, self.ts.a
        k = ts.gallop_right(self.temp[self.ct], a, self.base_a, self.len_a, self.len_a - 1)
        wins_a = self.len_a - k
        if wins_a > 0:
            self.dest -= wins_a
            self.ca -= wins_a
            a[self.dest + 1 : self.dest + 1 + wins_a] = a[self.ca + 1 : self.ca + 1 + wins_a]
            self.len_a -= wins_a
            if self.len_a == 0:
                return "succeed", wins_a, 0
        self.take_b()
        if self.len_b == 1:
            return "copy_a", wins_a, 0
        k = ts.gallop_left(a[self.ca], self.temp, 0, self.len_b, self.len_b - 1)
        wins_b = self.len_b - k
        if wins_b > 0:
            self.dest -= wins_b
            self.ct -= wins_b
            a[self.dest + 1 : self.dest + 1 + wins_b] = self.temp[self.ct + 1 : self.ct + 1 + wins_b]
            self.len_b -= wins_b
            if self.len_b == 1:
                return "copy_a", wins_a, wins_b
            if self.len_b == 0:  # only with an inconsistent comparator
                return "succeed", wins_a, wins_b
        self.take_a()
        if self.len_a == 0:
            return "succeed", wins_a, wins_b
        return "", wins_a, wins_b


def v8_sort(items: Sequence[T], compare: Callable[[T, T], float]) -> list[T]:
    """A new list: ``items`` sorted as V8's ``Array.prototype.sort(compare)`` sorts them
    (NaN from ``compare`` counts as 0). ``items`` must hold no ``undefined`` (V8 moves those to the end)."""
    return _TimSort(items, compare).sort()


def sort_descending_by(items: Sequence[T], value: Callable[[T], float]) -> list[T]:
    """``items.sort((a, b) => value(b) - value(a))`` in V8. With no NaN among the values the comparator
    is consistent and Python's stable sort gives the same order (fast path); otherwise V8's TimSort decides."""
    values = [value(item) for item in items]
    if all(v == v for v in values):
        order = sorted(range(len(values)), key=lambda i: -values[i])
        return [items[i] for i in order]
    keyed = list(zip(values, range(len(values)), strict=True))
    ranked = v8_sort(keyed, lambda x, y: y[0] - x[0])
    return [items[i] for _, i in ranked]


def sort_ascending_by(items: Sequence[T], value: Callable[[T], float]) -> list[T]:
    """``items.sort((a, b) => value(a) - value(b))`` in V8 (see ``sort_descending_by``)."""
    values = [value(item) for item in items]
    if all(v == v for v in values):
        order = sorted(range(len(values)), key=lambda i: values[i])
        return [items[i] for i in order]
    keyed = list(zip(values, range(len(values)), strict=True))
    ranked = v8_sort(keyed, lambda x, y: x[0] - y[0])
    return [items[i] for _, i in ranked]

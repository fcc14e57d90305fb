"""LineFramer: bytes in any chunking -> the same lines, byte for byte."""

from __future__ import annotations

import hashlib
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.protocol.framing import Capped, Line, LineFramer


def reference_lines(data: bytes) -> list[Line]:
    """Split a stream the obvious way: on LF, keep terminators, a trailing partial line gets b""."""
    out: list[Line] = []
    start = 0
    while True:
        nl = data.find(b"\n", start)
        if nl < 0:
            break
        raw = data[start : nl + 1]
        out.append(Line(raw, b"\r\n" if raw.endswith(b"\r\n") else b"\n"))
        start = nl + 1
    if start < len(data):
        out.append(Line(data[start:], b""))
    return out


def frame(chunks: list[bytes], *, close: bool = True) -> list[Line]:
    framer = LineFramer()
    lines: list[Line] = []
    for chunk in chunks:
        lines.extend(framer.feed(chunk))
    if close:
        lines.extend(framer.close())
    return lines


def split_at(data: bytes, points: tuple[int, ...]) -> list[bytes]:
    bounds = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


STREAM = b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n\r\n\n{"id":"\xc3\xa9"}\r\nbad \xff\xfe bytes\ntail\r'


# --- exhaustive chunk boundaries -------------------------------------------------


def test_reference_of_stream_is_what_we_expect() -> None:
    # Guard the reference itself, so the exhaustive tests compare against something known.
    lines = reference_lines(STREAM)
    assert [line.terminator for line in lines] == [b"\n", b"\r\n", b"\n", b"\r\n", b"\n", b""]
    assert lines[-1].raw == b"tail\r"


def test_one_chunk_gives_reference_lines() -> None:
    assert frame([STREAM]) == reference_lines(STREAM)


@pytest.mark.parametrize("point", range(len(STREAM) + 1))
def test_every_single_split_point(point: int) -> None:
    assert frame([STREAM[:point], STREAM[point:]]) == reference_lines(STREAM)


def test_every_pair_of_split_points() -> None:
    expected = reference_lines(STREAM)
    n = len(STREAM)
    for i in range(n + 1):
        for j in range(i, n + 1):
            got = frame(split_at(STREAM, (i, j)))
            assert got == expected, (i, j)


def test_every_subset_of_split_points_of_a_short_stream() -> None:
    # All 2**(n-1) chunkings of a short stream with CRLF, LF, an empty line and a partial tail.
    data = b"a\r\n\nb\r\r\nc"
    expected = reference_lines(data)
    n = len(data)
    for mask in range(1 << (n - 1)):
        points = tuple(i for i in range(1, n) if mask >> (i - 1) & 1)
        assert frame(split_at(data, points)) == expected, points


def test_one_byte_at_a_time() -> None:
    assert frame([STREAM[i : i + 1] for i in range(len(STREAM))]) == reference_lines(STREAM)


def test_empty_chunks_change_nothing() -> None:
    chunks = [b"", b"ab", b"", b"c\n", b"", b"", b"d"]
    assert frame(chunks) == [Line(b"abc\n", b"\n"), Line(b"d", b"")]


# --- property: random bytes, random chunking --------------------------------------

_stream_bytes = st.lists(
    st.one_of(
        st.sampled_from([b"\n", b"\r\n", b"\r", b"{}", b"\xff", b"\xc3", b"\xa9", b" "]),
        st.binary(max_size=12),
    ),
    max_size=30,
).map(b"".join)


@settings(max_examples=300, deadline=None)
@given(data=_stream_bytes, cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=20))
def test_random_chunking_frames_like_reference(data: bytes, cuts: list[int]) -> None:
    points = tuple(sorted({c % (len(data) + 1) for c in cuts}))
    lines = frame(split_at(data, points))
    assert b"".join(line.raw for line in lines) == data
    assert lines == reference_lines(data)
    for line in lines:
        assert line.raw == line.body + line.terminator
        assert b"\n" not in line.body


@settings(max_examples=200, deadline=None)
@given(chunks=st.lists(st.binary(max_size=40), max_size=20))
def test_pending_is_bytes_after_last_lf(chunks: list[bytes]) -> None:
    framer = LineFramer()
    seen = b""
    for chunk in chunks:
        framer.feed(chunk)
        seen += chunk
        assert framer.pending == len(seen) - (seen.rfind(b"\n") + 1)


# --- specific shapes --------------------------------------------------------------


def test_lf_line() -> None:
    framer = LineFramer()
    [line] = framer.feed(b'{"a":1}\n')
    assert line.raw == b'{"a":1}\n'
    assert line.terminator == b"\n"
    assert line.body == b'{"a":1}'


def test_crlf_line() -> None:
    [line] = LineFramer().feed(b'{"a":1}\r\n')
    assert line.terminator == b"\r\n"
    assert line.body == b'{"a":1}'
    assert line.raw == b'{"a":1}\r\n'


def test_cr_split_from_lf_across_chunks() -> None:
    framer = LineFramer()
    assert framer.feed(b'{"a":1}\r') == []
    assert framer.pending == 8
    [line] = framer.feed(b"\nnext")
    assert line == Line(b'{"a":1}\r\n', b"\r\n")
    assert line.body == b'{"a":1}'
    assert framer.pending == 4


def test_lone_cr_chunk_then_lf_chunk() -> None:
    framer = LineFramer()
    assert framer.feed(b"\r") == []
    assert framer.feed(b"\n") == [Line(b"\r\n", b"\r\n")]
    assert framer.close() == []


def test_cr_inside_a_line_is_not_a_terminator() -> None:
    [line] = LineFramer().feed(b"a\rb\n")
    assert line.terminator == b"\n"
    assert line.body == b"a\rb"


def test_empty_lines() -> None:
    lines = LineFramer().feed(b"\n\n\r\n")
    assert lines == [Line(b"\n", b"\n"), Line(b"\n", b"\n"), Line(b"\r\n", b"\r\n")]
    assert [line.body for line in lines] == [b"", b"", b""]


def test_invalid_utf8_passes_through() -> None:
    data = b"\xff\xfe\x80 \xc3\n\xed\xa0\x80\n"
    lines = frame([data[:4], data[4:]])
    assert [line.raw for line in lines] == [b"\xff\xfe\x80 \xc3\n", b"\xed\xa0\x80\n"]


def test_utf8_sequence_split_across_chunks() -> None:
    data = "é€😀\n".encode()
    for i in range(len(data) + 1):
        assert frame([data[:i], data[i:]]) == [Line(data, b"\n")]


def test_close_returns_partial_last_line() -> None:
    framer = LineFramer()
    assert framer.feed(b"done\npart") == [Line(b"done\n", b"\n")]
    [last] = framer.close()
    assert last.raw == b"part"
    assert last.terminator == b""
    assert last.body == b"part"
    assert framer.pending == 0
    assert framer.close() == []


def test_close_partial_line_ending_in_cr_keeps_the_cr() -> None:
    framer = LineFramer()
    framer.feed(b"x\r")
    assert framer.close() == [Line(b"x\r", b"")]


def test_close_with_nothing_pending() -> None:
    framer = LineFramer()
    assert framer.close() == []
    framer.feed(b"a\n")
    assert framer.close() == []


def test_close_of_a_partial_line_made_of_many_chunks() -> None:
    framer = LineFramer()
    for part in (b"a", b"b", b"c"):
        framer.feed(part)
    assert framer.close() == [Line(b"abc", b"")]


def test_framer_is_reusable_after_close() -> None:
    framer = LineFramer()
    framer.feed(b"one")
    framer.close()
    assert framer.feed(b"two\n") == [Line(b"two\n", b"\n")]


def test_pending_counts() -> None:
    framer = LineFramer()
    assert framer.pending == 0
    framer.feed(b"abc")
    assert framer.pending == 3
    framer.feed(b"de")
    assert framer.pending == 5
    lines = framer.feed(b"f\ngh")
    assert lines == [Line(b"abcdef\n", b"\n")]
    assert framer.pending == 2
    framer.feed(b"\n")
    assert framer.pending == 0
    framer.feed(b"x\r")
    assert framer.pending == 2
    framer.close()
    assert framer.pending == 0


def test_many_lines_in_one_chunk_keep_order() -> None:
    data = b"".join(b"%d\n" % i for i in range(1000))
    lines = LineFramer().feed(data)
    assert [line.body for line in lines] == [b"%d" % i for i in range(1000)]


def test_line_body_property() -> None:
    assert Line(b"ab\r\n", b"\r\n").body == b"ab"
    assert Line(b"ab\n", b"\n").body == b"ab"
    assert Line(b"ab", b"").body == b"ab"
    assert Line(b"\n", b"\n").body == b""


# --- huge lines -------------------------------------------------------------------


@pytest.mark.timeout(30)
def test_20mb_line_in_64k_chunks_is_one_identical_line() -> None:
    size = 20 * 1024 * 1024
    body = bytes(range(256)).replace(b"\n", b"N") * (size // 256)
    data = body + b"\r\n"
    chunk = 64 * 1024
    framer = LineFramer()
    lines: list[Line] = []
    for off in range(0, len(data), chunk):
        lines.extend(framer.feed(data[off : off + chunk]))
        if not lines:
            assert framer.pending == min(off + chunk, len(data))
    assert len(lines) == 1
    assert lines[0].terminator == b"\r\n"
    assert lines[0].raw == data
    assert lines[0].body == body
    assert framer.pending == 0
    assert framer.close() == []


@pytest.mark.timeout(10)
def test_framing_a_long_line_in_small_chunks_is_not_quadratic() -> None:
    # 16 MB in 512-byte chunks is 32768 feeds: linear framing does it in tens of
    # milliseconds; re-joining the buffer on every feed would copy ~256 GB.
    chunk = b"x" * 512
    n = 32 * 1024
    framer = LineFramer()
    for _ in range(n):
        assert framer.feed(chunk) == []
    assert framer.pending == n * 512
    [line] = framer.feed(b"\n")
    assert len(line.raw) == n * 512 + 1
    assert line.raw.count(b"x") == n * 512


_LINES = st.lists(st.binary(max_size=60).map(lambda b: b.replace(b"\n", b"") + b"\n"), max_size=6)


@given(lines=_LINES, tail=st.binary(max_size=60).map(lambda b: b.replace(b"\n", b"")),
       cap=st.integers(1, 70), sizes=st.lists(st.integers(1, 40), min_size=1, max_size=8))  # fmt: skip
@settings(max_examples=300, deadline=None)
def test_a_cap_keeps_each_lines_prefix_size_and_digest(
    lines: list[bytes], tail: bytes, cap: int, sizes: list[int]
) -> None:
    stream = b"".join(lines) + tail
    framer = LineFramer(cap)
    out: list[Line] = []
    pos = 0
    for n in itertools.cycle(sizes):
        if pos >= len(stream):
            break
        out += framer.feed(stream[pos : pos + n])
        pos += n
    out += framer.close()
    assert len(out) == len(lines) + bool(tail)
    for line, whole in zip(out, [*lines, *([tail] if tail else [])], strict=True):
        if len(whole) > cap:
            assert line.raw == whole[:cap] and line.cut is not None
            assert (line.cut.size, line.cut.sha256) == (len(whole), hashlib.sha256(whole).hexdigest())
        else:
            assert line.raw == whole and line.cut is None


def test_a_line_past_the_cap_holds_the_cap_not_the_line() -> None:
    framer = LineFramer(1024)
    chunk = b"x" * 65536
    for _ in range(64):
        assert framer.split(chunk) == []
    assert framer.pending == 64 * 65536  # counted...
    assert framer._long is not None and framer._long.kept == 1024  # ...but only the cap is kept
    assert framer.split(b"y\n{}\n") == [b"x" * 1024, b"{}\n"]
    assert framer.cuts is not None and set(framer.cuts) == {0}
    assert framer.cuts[0].size == 64 * 65536 + 2
    assert framer.split(b"[]\n") == [b"[]\n"] and framer.cuts is None


def test_capped_keeps_a_body_under_the_cap_whole() -> None:
    body = Capped(10)
    body.add(b"12345")
    assert body.done(b"678") == (b"12345678", None)
    long = Capped(4)
    long.add(b"12345")
    kept, cut = long.done(b"678")
    assert kept == b"1234" and cut is not None and cut.size == 8
    assert cut.sha256 == hashlib.sha256(b"12345678").hexdigest()

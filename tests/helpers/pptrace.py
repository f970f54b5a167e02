# SPDX-License-Identifier: MIT
"""Read and rewrite pp trace files chunk by chunk (spec/pp-trace-format.md), for
tests that build hostile input: every chunk of the result carries valid CRCs, so
what a test changes reaches the decoders behind the reader's checks.

Only files with uncompressed chunks (pp-record --codec none --encoding plain)
can have their payloads edited."""
import functools
import struct

FILE_HDR = 64
CHUNK_HDR = 56
TRAILER = 8
CHUNK_MAGIC = 0x4B435050
TRAILER_MAGIC = 0x454B4350
DATA, INDEX, FOOTER = 0x0010, 0x0020, 0x0021


def _table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        t.append(c)
    return t


_T = _table()


def crc32c(data, crc=0):
    crc ^= 0xFFFFFFFF
    for b in data:
        crc = _T[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


@functools.lru_cache(maxsize=16)
def _payload_crc(payload):
    """crc32c() of a payload, once per distinct payload: a test that copies a
    large chunk many times pays for one."""
    return crc32c(payload)


class Chunk:
    """One chunk: its header fields and its payload (as stored)."""

    def __init__(self, type, payload, stream=0xFFFFFFFF, codec=0, encoding=0, flags=0,
                 first_ts=0, last_ts=0, raw_size=None):
        self.type, self.payload, self.stream = type, bytes(payload), stream
        self.codec, self.encoding, self.flags = codec, encoding, flags
        self.first_ts, self.last_ts = first_ts, last_ts
        self.raw_size = len(payload) if raw_size is None else raw_size

    def pack(self, seq):
        h = struct.pack('<IHHBBHIIIQQQ', CHUNK_MAGIC, self.type, self.flags, self.codec,
                        self.encoding, 0, self.stream, len(self.payload), self.raw_size, seq,
                        self.first_ts, self.last_ts)
        h += struct.pack('<I', _payload_crc(self.payload))
        h += struct.pack('<I', crc32c(h))
        return h + self.payload + struct.pack('<II', TRAILER_MAGIC, len(self.payload))


def read(path):
    """The file header (bytes) and its chunks, in file order."""
    d = open(path, 'rb').read()
    chunks, off = [], FILE_HDR
    while off + CHUNK_HDR <= len(d):
        (magic, type, flags, codec, enc, _, stream, stored, raw, _seq, fts, lts) = \
            struct.unpack_from('<IHHBBHIIIQQQ', d, off)
        if magic != CHUNK_MAGIC:
            break
        p = d[off + CHUNK_HDR:off + CHUNK_HDR + stored]
        chunks.append(Chunk(type, p, stream, codec, enc, flags, fts, lts, raw))
        off += CHUNK_HDR + stored + TRAILER
    return d[:FILE_HDR], chunks


def write(path, header, chunks):
    """Write @chunks after @header, numbered from 0. INDEX and FOOTER chunks name
    offsets: drop them when chunks changed size (the reader then scans)."""
    with open(path, 'wb') as f:
        f.write(header)
        for seq, c in enumerate(chunks):
            f.write(c.pack(seq))


def records(payload):
    """(offset, type, size) of each perf record of a plain DATA payload."""
    off = 0
    while off + 8 <= len(payload):
        type, _misc, size = struct.unpack_from('<IHH', payload, off)
        if size < 8:
            return
        yield off, type, size
        off += size

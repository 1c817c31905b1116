"""A real browser for the report tests: Debian's chromium, driven through its own command line
(headless: the DOM after rendering, a screenshot, the console), and a stdlib PNG decoder to read
the screenshot's pixels.

What this file deliberately is not: a browser automation library; one launch per call.
"""
import os
import shutil
import struct
import subprocess
import time
import zlib

import pytest

CHROMIUM = shutil.which("chromium")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None and not os.environ.get("CI"),
    reason="Debian's chromium is not installed (apt-get install -y chromium); CI must have it")


def chromium(page, folder, *flags):
    """One headless launch: the DOM after rendering, a screenshot, the console (where chromium
    reports what the page's Content-Security-Policy refused), the seconds taken."""
    shot = folder / "shot.png"
    started = time.monotonic()
    run = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         # chromium still calls Google services on its own; with no name resolving, nothing leaves.
         "--host-resolver-rules=MAP * ~NOTFOUND", f"--user-data-dir={folder / 'profile'}",
         "--enable-logging=stderr", "--v=0", "--window-size=1200,900", f"--screenshot={shot}", *flags,
         "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout, shot.read_bytes(), run.stderr, time.monotonic() - started


def png_pixels(data):
    """Decode an 8-bit, non-interlaced RGB or RGBA PNG with the stdlib: rows of RGB bytes."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    chunks, pos = {}, 8
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunks.setdefault(kind, []).append(data[pos + 8:pos + 8 + length])
        pos += 12 + length  # length, type, body, CRC
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunks[b"IHDR"][0])
    assert depth == 8 and colour in (2, 6) and interlace == 0, "only 8-bit RGB(A) is handled"
    bpp = 3 if colour == 2 else 4
    raw, stride = zlib.decompress(b"".join(chunks[b"IDAT"])), width * bpp + 1
    rows, previous = [], bytes(width * bpp)
    for y in range(height):
        previous = _unfilter(raw[y * stride], raw[y * stride + 1:(y + 1) * stride], previous, bpp)
        rows.append(previous if bpp == 3 else b"".join(previous[i:i + 3] for i in range(0, len(previous), 4)))
    return width, height, rows


def _unfilter(kind, line, up, bpp):
    """Undo one scanline's PNG filter (0 none, 1 sub, 2 up, 3 average, 4 Paeth)."""
    if kind == 0:
        return line
    if kind == 2:  # bytewise add without carries, on whole rows as big integers: fast
        n, a, b = len(line), int.from_bytes(line, "big"), int.from_bytes(up, "big")
        low, high = int.from_bytes(b"\x7f" * n, "big"), int.from_bytes(b"\x80" * n, "big")
        return (((a & low) + (b & low)) ^ ((a ^ b) & high)).to_bytes(n, "big")
    out = bytearray(line)
    for i in range(len(out)):
        left = out[i - bpp] if i >= bpp else 0
        if kind == 1:
            out[i] = (out[i] + left) & 255
        elif kind == 3:
            out[i] = (out[i] + (left + up[i]) // 2) & 255
        else:
            corner = up[i - bpp] if i >= bpp else 0
            p = left + up[i] - corner
            pa, pb, pc = abs(p - left), abs(p - up[i]), abs(p - corner)
            out[i] = (out[i] + (left if pa <= pb and pa <= pc else up[i] if pb <= pc else corner)) & 255
    return bytes(out)

#!/usr/bin/env python3
"""png_stats.py — reads an 8-bit RGB/RGBA PNG with the standard library only
and prints facts the shell suites check:

  png_stats.py red FILE      "COUNT X0 Y0 X1 Y1" of pure-red pixels (255,0,0),
                             the real differences in a `marrow test` diff.png
                             ("0 -1 -1 -1 -1" when there are none)
  png_stats.py colours FILE  number of distinct colours
  png_stats.py yellow FILE   number of yellow pixels (r > 200, g > 170, b < 120):
                             the renderer's default skeleton bones
  png_stats.py hatch FILE    "COUNT X0 Y0 X1 Y1" of the hatch colours (70,70,100)
                             and (200,200,230): pixels scene.ignore left out
"""
import struct
import sys
import zlib


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: not a PNG")
    pos, idat, w = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise SystemExit(f"{path}: only 8-bit RGB/RGBA, not interlaced")
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def main():
    what, path = sys.argv[1], sys.argv[2]
    w, h, bpp, rows = read_png(path)
    if what in ("red", "hatch"):
        want = [(255, 0, 0)] if what == "red" else [(70, 70, 100), (200, 200, 230)]
        n, x0, y0, x1, y1 = 0, w, h, -1, -1
        for y, line in enumerate(rows):
            for x in range(w):
                if tuple(line[x * bpp:x * bpp + 3]) in want:
                    n += 1
                    x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
        print(n, *(x0, y0, x1, y1) if n else (-1, -1, -1, -1))
    elif what == "colours":
        seen = set()
        for line in rows:
            for x in range(w):
                seen.add(bytes(line[x * bpp:x * bpp + 3]))
        print(len(seen))
    elif what == "yellow":
        n = 0
        for line in rows:
            for x in range(w):
                r, g, b = line[x * bpp:x * bpp + 3]
                n += r > 200 and g > 170 and b < 120
        print(n)
    else:
        raise SystemExit("usage: png_stats.py red|hatch|colours|yellow FILE")


main()

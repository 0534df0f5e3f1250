"""cbor2_diff.py - our CBOR reader and writer against Python's cbor2 (Debian's
python3-cbor2), an independent implementation.

Random values (seeded) are encoded by cbor2, copied by `cbor-tool copy` (our
pull reader into our writer) and decoded by cbor2 again: every value must come
back equal, of the same type (1 is not 1.0 nor True), -0.0 and NaN included.
So bytes cbor2 writes are read by us, and bytes we write are read by cbor2,
without a loss. `cbor-tool diag` must print the whole sequence.

    python3 cbor2_diff.py CBOR-TOOL [COUNT [SEED]]

Run with Debian's /usr/bin/python3 (the one python3-cbor2 installs into).
"""
import io
import math
import random
import subprocess
import sys

try:
    import cbor2
except ImportError:
    print("cbor2_diff: skipped: python3-cbor2 is not installed")
    sys.exit(77)

# Tags cbor2 gives a meaning to on decoding (dates, bignums, string
# references, shared values, sets, ...): left out, their items are compared
# as plain tags only.
SEMANTIC_TAGS = {0, 1, 2, 3, 4, 5, 25, 28, 29, 30, 35, 36, 37, 100, 256, 258, 260, 261, 1004, 55799}


def rnd_text(rng):
    pool = ["", "a", "IETF", "\u00fc", "\u6c34", "\U00010151", '"\\', "tab\there", "\x00\x1f"]
    if rng.random() < 0.5:
        return rng.choice(pool)
    return "".join(chr(rng.choice([rng.randrange(0x20, 0x7F), rng.randrange(0xA0, 0xD800),
                                   rng.randrange(0xE000, 0x110000)])) for _ in range(rng.randrange(12)))


def rnd_float(rng):
    return rng.choice([0.0, -0.0, 1.5, 65504.0, 1e300, 5.960464477539063e-8, float("inf"),
                       float("-inf"), float("nan"), rng.uniform(-1e6, 1e6),
                       float.fromhex("0x1.8p-20"), rng.random() * 10 ** rng.randrange(-300, 300)])


def rnd_value(rng, depth):
    kind = rng.randrange(13 if depth > 0 else 9)
    if kind == 0:
        return rng.choice([0, 23, 24, 255, 256, 65535, 65536, 2**32 - 1, 2**32, 2**64 - 1,
                           rng.randrange(2**64)])
    if kind == 1:
        return -1 - rng.choice([0, 23, 24, 255, 256, 2**32, 2**64 - 1, rng.randrange(2**64)])
    if kind == 2:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(40)))
    if kind == 3:
        return rnd_text(rng)
    if kind == 4:
        return rnd_float(rng)
    if kind == 5:
        return rng.choice([True, False, None, cbor2.undefined])
    if kind == 6:
        return cbor2.CBORSimpleValue(rng.choice(list(range(0, 20)) + list(range(32, 256))))
    if kind in (7, 8):
        return rng.randrange(-1000, 1000)
    if kind == 9:
        return [rnd_value(rng, depth - 1) for _ in range(rng.randrange(6))]
    if kind in (10, 11):
        keys = set()
        out = {}
        for _ in range(rng.randrange(6)):
            key = rng.choice([rng.randrange(-100, 100), rnd_text(rng), bytes([rng.randrange(256)])])
            if key not in keys:
                keys.add(key)
                out[key] = rnd_value(rng, depth - 1)
        return out
    tag = rng.randrange(6, 60000)
    while tag in SEMANTIC_TAGS:
        tag += 1
    return cbor2.CBORTag(tag, rnd_value(rng, depth - 1))


def same(a, b):
    """Equal values of the same types; NaN equals NaN, -0.0 is not 0.0."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a.keys()) == list(b.keys()) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, cbor2.CBORTag):
        return a.tag == b.tag and same(a.value, b.value)
    return a == b


def main():
    tool = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 8949
    rng = random.Random(seed)
    values = [rnd_value(rng, 4) for _ in range(count)]
    encoded = b"".join(cbor2.dumps(v) for v in values)
    copied = subprocess.run([tool, "copy"], input=encoded, capture_output=True, check=False)
    if copied.returncode != 0:
        print(f"cbor2_diff: FAIL our reader refused cbor2's bytes: {copied.stderr.decode()}")
        return 1
    decoder = cbor2.CBORDecoder(io.BytesIO(copied.stdout))
    bad = 0
    for i, want in enumerate(values):
        got = decoder.decode()
        if not same(got, want):
            bad += 1
            if bad <= 5:
                print(f"cbor2_diff: FAIL value {i}: {want!r} came back as {got!r}"
                      f" (cbor2: {cbor2.dumps(want).hex()})")
    diag = subprocess.run([tool, "diag"], input=encoded, capture_output=True, check=False)
    if diag.returncode != 0 or diag.stdout.count(b"\n") != 1:
        print(f"cbor2_diff: FAIL diagnostic notation: {diag.stderr.decode()}")
        bad += 1
    print(f"cbor2_diff: {count} values (seed {seed}), {len(encoded)} bytes: {bad} differences")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

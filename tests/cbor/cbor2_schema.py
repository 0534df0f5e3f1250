"""cbor2_schema.py - the schema engine's CBOR codec on the protocol's types,
against Python's cbor2 (Debian's python3-cbor2) as the oracle.

For every message of the protocol corpus (tests/corpus/protocol/valid):

  - cbor2 encodes the message's JSON value; our engine decodes that CBOR as
    the message's rule and writes JSON (`cbor-schema --to-json`): the same
    value as the corpus file's;
  - our engine decodes the corpus JSON and encodes CBOR
    (`cbor-schema --to-cbor`); cbor2 decodes it: the same value again.

Numbers compare by value: our encoder writes what a double cannot hold
exactly (1e400, pi to 36 digits) as a decimal fraction, which cbor2 reads as
a Decimal; JSON's text is read as a Decimal too where it needs it.

    python3 cbor2_schema.py CBOR-SCHEMA CORPUS-DIR
"""
import decimal
import json
import math
import subprocess
import sys

try:
    import cbor2
except ImportError:
    print("cbor2_schema: skipped: python3-cbor2 is not installed")
    sys.exit(77)


def exact_float(text):
    """A JSON number with a fraction or exponent: a float when a double holds it, else its Decimal."""
    d = decimal.Decimal(text)
    f = float(text)
    if math.isfinite(f) and decimal.Decimal(repr(f)) == d:
        return f
    return d


def same(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float, decimal.Decimal)) and isinstance(b, (int, float, decimal.Decimal)):
        return decimal.Decimal(a) == decimal.Decimal(b) if not (isinstance(a, float) or isinstance(b, float)) \
            else float(a) == float(b) and (float(a) != 0 or math.copysign(1, float(a)) == math.copysign(1, float(b))
                                            or isinstance(a, int) or isinstance(b, int))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def main():
    tool, corpus = sys.argv[1], sys.argv[2]
    rows = [line.rstrip("\n").split("\t") for line in open(f"{corpus}/MANIFEST.tsv", encoding="utf-8")][1:]
    bad = 0
    checked = 0
    for rule in ("Message", "Command"):
        files = [r[0] for r in rows if len(r) > 1 and r[1] == rule]
        texts = [open(f"{corpus}/{f}", encoding="utf-8").read().strip() for f in files]
        values = [json.loads(t, parse_float=exact_float) for t in texts]
        # theirs -> ours
        theirs = b"".join(cbor2.dumps(v) for v in values)
        out = subprocess.run([tool, "--to-json", rule], input=theirs, capture_output=True, check=False)
        if out.returncode != 0:
            print(f"cbor2_schema: FAIL {rule}: our decoder refused cbor2's CBOR: {out.stderr.decode()}")
            bad += 1
        else:
            for f, want, line in zip(files, values, out.stdout.decode().splitlines()):
                got = json.loads(line, parse_float=exact_float)
                if not same(got, want):
                    bad += 1
                    print(f"cbor2_schema: FAIL {f}: cbor2's CBOR decoded by ours as {line}")
        # ours -> theirs
        out = subprocess.run([tool, "--to-cbor", rule], input="\n".join(texts).encode(), capture_output=True,
                             check=False)
        if out.returncode != 0:
            print(f"cbor2_schema: FAIL {rule}: our encoder failed: {out.stderr.decode()}")
            bad += 1
            continue
        decoder = cbor2.CBORDecoder(__import__("io").BytesIO(out.stdout))
        for f, want in zip(files, values):
            got = decoder.decode()
            if not same(got, want):
                bad += 1
                print(f"cbor2_schema: FAIL {f}: our CBOR decoded by cbor2 as {got!r}")
        checked += len(files)
    print(f"cbor2_schema: {checked} corpus messages both ways: {bad} differences")
    return 1 if bad or checked < 100 else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""cddl_schemas.py CBOR_CDDL HAVE_LIBCBOR - the code `cddlgen generate --cbor`
writes for CBOR-first schemas (zcbor's COSE, SenML, optional and
serial-recovery cases; RFC 8610's examples), against Python's cbor2.

Each instance below is encoded by cbor2, decoded by the generated decoder
of its type and encoded again by the generated encoder (cbor-cddl, see
cddl_tool.c); cbor2 must read our bytes back equal to the instance, and,
when cbor-cddl has libcbor, libcbor must serialize them back byte for byte.
Invalid instances must be refused with the given text in the located error.

Then random valid values of every type (cbor-cddl --random, made from the
descriptors, encoded by the generated encoders): libcbor serializes each
back byte for byte, cbor2 reads each, and what cbor2 writes of that value
decodes in ours and encodes to our bytes again.
Exit 0 when all hold, 1 with the differences.
"""
import os
import subprocess
import sys
import tempfile

import cbor2
from cbor2 import CBORTag, undefined

tool = sys.argv[1]
have_libcbor = sys.argv[2] == "1"

sig = bytes(range(64))
prot = cbor2.dumps({1: -7})  # h'a10126': ES256, RFC 9052 C.2.1

# (type, instance, expectation): "ok", ("ok", json text the same C value
# encodes to, or "-" when the JSON encoder refuses it), or ("error", text).
CASES = [
    # COSE (RFC 9052's CDDL, zcbor's cose.cddl): tags, integer keys, bstr .cbor
    ("COSE_Sign1_Tagged", CBORTag(18, [prot, {4: b"11"}, b"This is the content.", sig]), ("ok", "-")),
    ("COSE_Sign1_Tagged", CBORTag(18, [b"", {}, None, sig]), "ok"),
    ("COSE_Sign1_Tagged", CBORTag(18, [prot, {1: "A128GCM", 3: 42, "x-custom": [1, 2]}, b"", sig]), "ok"),
    ("COSE_Sign1_Tagged", CBORTag(17, [prot, {}, b"", sig]), ("error", "expected tag 18; got tag 17")),
    ("COSE_Sign1_Tagged", [prot, {}, b"", sig], ("error", "expected tag 18")),
    ("empty_or_serialized_map", prot, "ok"),
    ("empty_or_serialized_map", b"", "ok"),
    ("empty_or_serialized_map", cbor2.dumps([1]), ("error", "embedded CBOR")),
    ("empty_or_serialized_map", cbor2.dumps({1: -7})[:-1], ("error", "embedded CBOR")),
    ("COSE_Sign1_Tagged", CBORTag(18, ["text", {}, b"", sig]), ("error", "[wrong type]")),
    ("COSE_Sign_Tagged", CBORTag(98, [prot, {}, b"payload", [[prot, {4: b"kid"}, sig]]]), "ok"),
    ("COSE_Mac0_Tagged", CBORTag(17, [prot, {5: bytes(16)}, b"payload", bytes(32)]), "ok"),
    ("COSE_Encrypt0_Tagged", CBORTag(16, [prot, {5: bytes(12)}, b"ciphertext"]), "ok"),
    ("COSE_Messages", CBORTag(17, [prot, {}, b"p", bytes(8)]), "ok"),
    ("COSE_Messages", [prot, {}, b"p", sig], "ok"),
    ("COSE_Key", {1: 4, 2: b"our-key", 3: "HS256", 4: [1, "sign"], 5: bytes(16)}, ("ok", "-")),
    ("COSE_Key", {1: 1, 3: -7}, ("ok", '{"1":1,"3":-7}')),
    ("COSE_Key", {2: b"no kty"}, ("error", "missing required member '1'")),
    ("COSE_Key", {1: 1, 2: "text kid"}, ("error", "/2")),
    ("header_map", {1: -7, 2: [1, "crit"], 3: "text/plain", 6: b"\x00"}, "ok"),
    ("header_map", {1: -7, "4": 1}, ("error", "JSON name of an integer key: '4'")),
    ("Sig_structure", ["Signature1", prot, b"", b"payload"], "ok"),
    ("Sig_structure", ["Signature2", prot, b"", b"payload"], ("error", 'got "Signature2"')),
    # zcbor's small cases: optional members, integer keys through names (SenML), bstr members
    ("cfg", {}, ("ok", "{}")),
    ("cfg", {"mem_config": [1, 15]}, "ok"),
    ("lwm2m_senml", [{-2: "urn:dev:ow:10e2073a01080063:", 0: "temp", 2: 23}], "ok"),
    ("lwm2m_senml", [{0: "blob", 8: b"\x01\x02"}, {0: "flag", 4: True}], "ok"),
    ("lwm2m_senml", [{0: "x", 2: "not numeric"}], ("error", "/0/2")),
    ("Upload", {"off": 0, "sha": bytes(32), "data": b"\xde\xad\xbe\xef", "upgrade": False}, ("ok", "-")),
    ("Upload", {"image": 1, "len": 4096, "off": 512}, ("ok", '{"image":1,"len":4096,"off":512}')),
    ("Upload", {"off": 0, "data": "text"}, ("error", "byte string")),
    # zcbor's cases written in its own dialect (docs/cddl.md, "zcbor's dialect"): labels on
    # choices and groups, an occurrence after a label, a label before a key
    ("Pet", [["Fluffy", "Furry"], bytes(8), 1], "ok"),
    ("Pet", [["Rex"], b"\x01" * 8, 3], "ok"),
    ("Pet", [["Rex"], b"short", 2], ("error", "/1")),
    ("MultiList", {"images": [{"image": 0, "slot": 1, "version": b"1.0.0"}, {"image": 1, "slot": 0, "version": b""}]}, "ok"),
    ("MultiList", {"images": [{"image": 1}]}, ("error", "missing required member 'slot'")),
    ("MultiList", {"images": []}, ("error", "/images")),
    ("List", {"images": [{"slot": 0, "version": b"2.1"}]}, "ok"),
    # RFC 8610's examples
    ("reputation-object", {"application": "conflict.example", "reputons": [
        {"rater": "rep.example", "assertion": "spam", "rated": "mail.example", "rating": 0.5,
         "confidence": 0.25, "sample-size": 1000, "extra": "kept"}]}, "ok"),
    ("reputation-object", {"application": "a", "reputons": [
        {"rater": "r", "assertion": "a", "rated": "r", "rating": 1.0}]}, ("ok", '{"application":"a","reputons":[{"rater":"r","assertion":"a","rated":"r","rating":1}]}')),
    ("reputation-object", {"application": "a", "reputons": [
        {"rater": "r", "assertion": "a", "rated": "r", "rating": 0.1}]}, ("error", "16-bit float holds exactly")),
    ("my_uri", CBORTag(32, "https://example.com/"), ("ok", '"https://example.com/"')),
    ("my_uri", "https://example.com/", "ok"),
    ("my_uri", CBORTag(33, "https://example.com/"), ("error", "expected tag 32; got tag 33")),
    ("my_breakfast", CBORTag(55799, ["eggs", "toast"]), ("ok", '["eggs","toast"]')),
    ("full-address", [[bytes(8)], bytes(4), bytes(16)], "ok"),
    ("audio_sample", 16777215, ("ok", "16777215")),
    ("audio_sample", 16777216, ("error", "[out of range]")),
    ("tcpflags", 0x1200, "ok"),
    ("tcpflags", 0x10000, ("error", "[out of range]")),
    ("signed-timestamp", {"alg": -7, "payload": cbor2.dumps([1700000000, b"nonce"])}, ("ok", "-")),
    ("signed-timestamp", {"alg": -7, "payload": cbor2.dumps(["1700000000", b"nonce"])}, ("error", "embedded CBOR")),
    ("signed-timestamp", {"alg": -7, "payload": b"\x82\x01"}, ("error", "embedded CBOR")),
    ("header", {1: -7, 4: b"kid", 5: b"\x01\x02", 3: undefined}, ("ok", "-")),
    ("header", {5: b"\x01\x02"}, "ok"),
    ("header", {5: b"\x01\x03"}, ("error", "h'0102'")),
    ("header", {1: -7}, ("error", "missing required member '5'")),
    ("either", b"\x00\xff", ("ok", "-")),
    ("either", "text", ("ok", '"text"')),
    ("Geography", ["Vienna", {"longitude": 163738000, "latitude": 482082000}], "ok"),
    ("tagged-any", CBORTag(99, [1, "x", {"k": None}]), ("ok", '[1,"x",{"k":null}]')),
    ("tagged-any", CBORTag(98, 1), ("error", "expected tag 99; got tag 98")),
    ("log", cbor2.dumps(1) + cbor2.dumps(70000) + cbor2.dumps(3), ("ok", "-")),
    ("log", b"", "ok"),
    ("log", cbor2.dumps(1) + cbor2.dumps("x"), ("error", "embedded CBOR (.cborseq)")),
    ("widths", {"f32": 0.1000000014901161193847656, "f64": 0.1}, ("ok", '{"f32":0.10000000149011612,"f64":0.1}')),
    ("widths", {"f32": 0.1, "f64": 0.1}, ("error", "32-bit float holds exactly")),
    # keys that are no text (issue 44): COSE's `* label => values` keeps an EC2 key's -1, -2, -3 (RFC 9052
    # C.7.1), byte-string values included, and writes them back byte for byte ("same"); in JSON an integer
    # key is its decimal text, a byte-string value has no form
    ("COSE_Key", {1: 2, 2: b"kid", -1: 1, -2: bytes(32), -3: bytes(range(32))}, ("ok", "-", "same")),
    ("COSE_Key", {1: 1, -1: 4, -4: "x", "use": [1, None]}, ("ok", '{"1":1,"-1":4,"-4":"x","use":[1,null]}', "same")),
    ("COSE_Key", {1: 1, -65536: {"k": -1.5}}, ("ok", '{"1":1,"-65536":{"k":-1.5}}', "same")),
    ("header_map", {1: -7, -70000: [1, 2], "x": b"\x01"}, ("ok", "-", "same")),
    ("COSE_Key", {1: 1, b"k": 1}, ("error", "the key is no label")),
    ("COSE_Key", {1: 1, 4.5: 1}, ("error", "the key is no label")),
    ("COSE_Key", {1: 1, -1: 1, "-1": 2}, ("error", "an integer key and a text key of one JSON name: '-1'")),
    ("COSE_Key", {1: 1, "3": 2}, ("error", "JSON name of an integer key: '3'")),
    ("COSE_Key", {1: 1, 0: "zero", "00": 1, "-0": 2}, ("ok", '{"1":1,"0":"zero","00":1,"-0":2}', "same")),
    # zcbor's map_bstr: an array as a key (`["test3"] => bstr .cbor 1234`), a typed tail of one member
    ("map", {"test": b"a", "test2": CBORTag(1234, b"b"), ("test3",): cbor2.dumps(1234)}, ("ok", "-", "same")),
    ("map", {"test": b"", "test2": CBORTag(1234, b""), ("test3",): cbor2.dumps(1235)}, ("error", "embedded CBOR")),
    ("map", {"test": b"", "test2": CBORTag(1234, b""), ("test4",): cbor2.dumps(1234)}, ("error", "the key is no")),
    ("map", {"test": b"", "test2": CBORTag(1234, b"")}, ("error", "expected at least 1 extra member")),
    # zcbor's yaml_compatibility: `{ [tstr] => [tstr] }`, keys that are arrays of texts
    ("Yaml_compatibility_example", {"bstr_hex": bytes(8), "bstr_obj": cbor2.dumps([{"foo": 1, "bar": True}]),
                                    "nonstandard_key": {("a", ): ["b"]}, "tagged": CBORTag(12345678, "t"),
                                    "undefined": undefined}, ("ok", "-", "same")),
    ("Yaml_compatibility_example", {"bstr_hex": bytes(8), "bstr_obj": cbor2.dumps([{"foo": 1, "bar": True}]),
                                    "nonstandard_key": {"a": ["b"]}, "tagged": CBORTag(12345678, "t"),
                                    "undefined": undefined}, ("error", "/nonstandard_key")),
    ("Yaml_compatibility_example", {"bstr_hex": bytes(8), "bstr_obj": cbor2.dumps([{"foo": 1, "bar": True}]),
                                    "nonstandard_key": {("a", ): [1]}, "tagged": CBORTag(12345678, "t"),
                                    "undefined": undefined}, ("error", "expected a text string")),
    ("Yaml_compatibility_example", {"bstr_hex": bytes(8), "bstr_obj": cbor2.dumps([{"foo": 1, "bar": True}]),
                                    "nonstandard_key": {("a", ): ["b", "c"]}, "tagged": CBORTag(12345678, "t"),
                                    "undefined": undefined}, ("error", "expected at most 1 element")),
    ("Yaml_compatibility_example", {"bstr_hex": bytes(8), "bstr_obj": cbor2.dumps([{"foo": 1, "bar": True}]),
                                    "nonstandard_key": {}, "tagged": CBORTag(12345678, "t"),
                                    "undefined": undefined}, ("error", "expected at least 1 extra member")),
    # SUIT (zcbor's manifest9_simple: draft-ietf-suit-manifest-09): positional arrays whose
    # command sequences repeat a choice of (command, argument) pairs, inside bstr .cbor
    ("SUIT_Command_Sequence", [1, 0, 21, 2, 23, 15], "ok"),
    ("SUIT_Command_Sequence", [12, True, 20, {1: bytes(16), 14: 34768, 21: "coap://x/fw"}], ("ok", "-")),
    ("SUIT_Command_Sequence", [3, 15], ("ok", "[3,15]")),
    ("SUIT_Command_Sequence", [99, 0], ("error", "no alternative")),
    ("SUIT_Command_Sequence", [1], ("error", "the array ends")),
    ("SUIT_Command_Sequence", [], ("error", "expected at least 1 element; got 0")),
    ("SUIT_Command_Sequence", [1, 0] * 11, ("error", "more elements")),
    ("SUIT_Command_Sequence", [19, {1: bytes(15)}], ("error", "/1/1")),
    ("SUIT_Common_Sequence", [1, 15, 12, 0, 2, 15], "ok"),
    ("SUIT_Digest", [2, bytes(32)], ("ok", "-")),
    ("SUIT_Digest", [3, bytes(32)], ("error", "/0")),
    ("SUIT_Digest", [2, bytes(32), 1], ("error", "more elements")),
    ("SUIT_Envelope", {3: cbor2.dumps({1: 1, 2: 7, 3: cbor2.dumps({2: [[b"\x00"], [b"fw", b"a"]],
                                                                 4: cbor2.dumps([1, 15, 2, 15])}),
                                       9: cbor2.dumps([21, 2, 23, 2])})}, ("ok", "-")),
    ("SUIT_Envelope", {2: cbor2.dumps([cbor2.dumps(CBORTag(18, [prot, {}, cbor2.dumps([2, bytes(32)]), sig]))]),
                       3: cbor2.dumps({1: 1, 2: 0, 3: cbor2.dumps({})})}, "ok"),
    ("SUIT_Envelope", {3: cbor2.dumps({1: 1, 2: 0, 3: cbor2.dumps({}), 9: cbor2.dumps([21])})},
     ("error", "embedded CBOR")),
    ("SUIT_Manifest", {1: 2, 2: 0, 3: cbor2.dumps({})}, ("error", "/1")),
    # SUIT drafts 12 and 20 (zcbor's manifest12, and manifest20 read after cose.cddl)
    ("SUIT20_Command_Sequence", [1, 15, 21, 2, -5, b"custom"], "ok"),
    ("SUIT20_Command_Sequence", [-5, None], "ok"),
    ("SUIT20_Command_Sequence", [1, -1], ("error", "/1")),
    ("SUIT20_Envelope_Tagged", CBORTag(107, {2: cbor2.dumps([cbor2.dumps([-16, bytes(32)])]),
                                            3: cbor2.dumps({1: 1, 2: 0, 3: cbor2.dumps({2: [[b"\x00"]]})})}),
     ("ok", "-")),
    ("SUIT20_Manifest", {1: 1, 2: 1, 3: cbor2.dumps({}), 17: cbor2.dumps([21, 2])}, ("ok", "-")),
    ("SUIT20_Manifest", {1: 1, 2: 1, 3: cbor2.dumps({}), 17: [-16, bytes(32)]}, ("ok", "-")),
    ("SUIT20_Authentication", [cbor2.dumps([-16, bytes(32)])], ("ok", "-")),
    ("SUIT20_Authentication", [cbor2.dumps([-16, bytes(32)]), cbor2.dumps(CBORTag(18, [prot, {}, None, sig]))], "ok"),
    ("SUIT20_Authentication", [], ("error", "the array ends")),
    ("SUIT12_Command_Sequence", [1, 15, 21, 2], "ok"),
    # positional arrays whose entries overlap (tests/cbor/schemas/positional.cddl): read with backtracking
    ("overlap", [1, 2, "x"], ("ok", '[1,2,"x"]')),
    ("overlap", ["x"], ("ok", '["x"]')),
    ("overlap", [1, 2], ("error", "the array ends")),
    ("overlap", [1, "x", 2], ("error", "more elements")),
    ("overlap", [0] * 20000, ("error", "element reads to match")),
    ("sig-like", ["Signature1", b"", b"payload"], ("ok", "-")),
    ("sig-like", ["Signature1", b"s", b"", b"payload"], "ok"),
    ("sig-like", ["Signature1", b"payload"], ("error", "the array ends")),
    ("pairs", [1, "a", 2, "b", 3], ("ok", '[1,"a",2,"b",3]')),
    ("pairs", [1, "a", 2], "ok"),
    ("pairs", [7], "ok"),
    ("pairs", [1, 2], ("error", "/1")),
    ("choice", [1, 5, 2, "x", 3, b"a", b"b", 1, 0], "ok"),
    ("choice", [3], "ok"),
    ("choice", [4], ("error", "no alternative")),
    ("nested", [1, 2, "x", True], ("ok", '[1,2,"x",true]')),
    ("nested", [1, True], "ok"),
    ("nested", [1, 2, True], ("error", "/2")),
    ("SUIT12_Common_Sequence", [1, 15, 12, 0], "ok"),
    ("SUIT12_Manifest", {1: 1, 2: 5, 3: cbor2.dumps({}), 9: cbor2.dumps([21, 2])}, ("ok", "-")),
    ("SUIT12_Manifest", {1: 1, 2: 5, 3: cbor2.dumps({}), 9: [2, bytes(32)]}, ("ok", "-")),
    ("SUIT12_Envelope_Tagged", CBORTag(48, {2: cbor2.dumps([cbor2.dumps([2, bytes(32)])]),
                                           3: cbor2.dumps({1: 1, 2: 5, 3: cbor2.dumps({})})}), ("ok", "-")),
]


def run(type_name, items):
    with tempfile.NamedTemporaryFile(suffix=".cborseq", delete=False) as f:
        for item in items:
            f.write(cbor2.dumps(item))
        path = f.name
    try:
        out = subprocess.run([tool, type_name, path], capture_output=True, text=True, timeout=30)
    finally:
        os.unlink(path)
    if out.returncode != 0:
        return None, out.stderr
    return out.stdout.splitlines(), out.stderr


RANDOM_PER_TYPE = 40
# cbor2 drops the self-described CBOR tag 55799 when it reads: my_breakfast's value differs by design
RANDOM_SKIP = {"my_breakfast"}


def random_round(types, failures):
    made = 0
    for seed, t in enumerate(types):
        if t in RANDOM_SKIP:
            continue
        out = subprocess.run([tool, "--random", str(RANDOM_PER_TYPE), str(seed + 1), t],
                             capture_output=True, text=True, timeout=30)
        lines = out.stdout.splitlines()
        if out.returncode != 0 or len(lines) != RANDOM_PER_TYPE:
            failures.append(f"random {t}: cbor-cddl made {len(lines)} values (exit {out.returncode}): {out.stderr}")
            continue
        ours = []
        for line in lines:
            fields = line.split(" ")
            if "libcbor-differs" in fields:
                failures.append(f"random {t}: libcbor serializes our {fields[1]} differently")
            ours.append(bytes.fromhex(fields[1]))
        theirs = [cbor2.loads(b) for b in ours]
        back, err = run(t, theirs)
        if back is None or len(back) != len(ours):
            failures.append(f"random {t}: cbor-cddl failed on cbor2's encodings: {err}")
            continue
        for a, v, line in zip(ours, theirs, back):
            made += 1
            if not line.startswith("ok ") or bytes.fromhex(line.split(" ")[1]) != a:
                failures.append(f"random {t}: ours {a.hex()}, cbor2 reads {v!r:.100}, its bytes come back as: {line:.200}")
    return made


# The JSON decoder of the same C types: tags are transparent, integer keys are decimal names, and what
# has no JSON form is refused where it is.
JSON_CASES = [
    ("Upload", '{"off":0,"sha":"AAAA"}', ("error", '15 /sha [wrong type] a byte string has no JSON form')),
    ("Upload", '{"off":0,"image":3}', "ok"),
    ("my_uri", '"https://example.com/"', "ok"),
    ("my_breakfast", '["eggs"]', "ok"),
    ("COSE_Key", '{"1":1,"3":-7}', "ok"),
    ("COSE_Key", '{"1":1,"2":"kid"}', ("error", "/2 [wrong type] a byte string has no JSON form")),
    ("COSE_Key", '{"1":1,"-1":4,"x":[1]}', "ok"),  # JSON names stay text: "-1" is no integer key in JSON
    ("header", '{"5":"AQI="}', ("error", "/5 [wrong type] a byte string has no JSON form")),
    # positional arrays read from JSON: matched as in CBOR, errors placed at the array with the element's path
    ("overlap", '[1, 2, "x"]', "ok"),
    ("pairs", '[1,"a",2,"b",3]', "ok"),
    ("nested", '[1, true]', "ok"),
    ("nested", '[1, 2, true]', ("error", "0 /2 [wrong type]")),
    ("SUIT_Command_Sequence", '[1, 0, 21, 2]', "ok"),
    ("SUIT_Command_Sequence", '[1, "x"]', ("error", "0 /1 [wrong type] expected an integer, got a text string")),
    ("SUIT_Digest", '[2, "AAAA"]', ("error", "0 /1 [wrong type] expected a byte string, got a text string")),
]


def json_round(failures):
    for t, text, expect in JSON_CASES:
        out = subprocess.run([tool, "--json", t, text], capture_output=True, text=True, timeout=30).stdout.strip()
        if expect == "ok" and out != "ok":
            failures.append(f"JSON {t} {text}: refused: {out}")
        elif expect != "ok" and (not out.startswith("error ") or expect[1] not in out):
            failures.append(f"JSON {t} {text}: expected an error with {expect[1]!r}, got: {out}")
    return len(JSON_CASES)


def main():
    failures = []
    by_type = {}
    for i, (t, value, expect) in enumerate(CASES):
        by_type.setdefault(t, []).append((i, value, expect))
    checked = 0
    for t, cases in by_type.items():
        lines, err = run(t, [v for _, v, _ in cases])
        if lines is None or len(lines) != len(cases):
            failures.append(f"{t}: cbor-cddl failed or gave {0 if lines is None else len(lines)} lines: {err}")
            continue
        for (i, value, expect), line in zip(cases, lines):
            kind = expect if isinstance(expect, str) else expect[0]
            what = f"case {i} ({t} {value!r:.80})"
            checked += 1
            if kind == "error":
                if not line.startswith("error ") or expect[1] not in line:
                    failures.append(f"{what}: expected an error with {expect[1]!r}, got: {line}")
                elif len(line.split(" ")) < 4 or not line.split(" ")[1].isdigit():
                    failures.append(f"{what}: the error has no byte offset: {line}")
                continue
            if not line.startswith("ok "):
                failures.append(f"{what}: refused: {line}")
                continue
            fields = line.split(" ", 3)
            ours = bytes.fromhex(fields[1])
            rest = fields[2:]
            if rest and rest[0] == "libcbor-differs":
                failures.append(f"{what}: libcbor serializes our {ours.hex()} differently")
                rest = rest[1:] if len(rest) == 1 else rest[1].split(" ", 1)
            back = cbor2.loads(ours)
            if isinstance(value, CBORTag) and value.tag == 55799:  # cbor2 drops the self-described CBOR tag
                value = value.value
                if not ours.startswith(b"\xd9\xd9\xf7"):
                    failures.append(f"{what}: tag 55799 is not written: {ours.hex()}")
            if back != value:
                failures.append(f"{what}: our {ours.hex()} reads back in cbor2 as {back!r}")
            if len(expect) > 2 and expect[2] == "same" and ours != cbor2.dumps(value):
                failures.append(f"{what}: our {ours.hex()} is not cbor2's {cbor2.dumps(value).hex()} byte for byte")
            if t == "widths" and (b"\xfa" not in ours or b"\xfb" not in ours):
                failures.append(f"{what}: float32 / float64 not written in their widths: {ours.hex()}")
            if t == "reputation-object" and b"\xf9" not in ours:
                failures.append(f"{what}: float16 ratings are not written as half floats: {ours.hex()}")
            if not isinstance(expect, str):
                json_text = " ".join(rest)
                want = expect[1]
                if want == "-" and not json_text.startswith("-"):
                    failures.append(f"{what}: the JSON encoder wrote {json_text} for a value with no JSON form")
                elif want != "-" and json_text != want:
                    failures.append(f"{what}: JSON {json_text}, expected {want}")
    randoms = random_round(list(by_type), failures)
    jsons = json_round(failures)
    for f in failures[:40]:
        print(f, file=sys.stderr)
    print(f"{checked} instances over {len(by_type)} types, {randoms} random values, {jsons} JSON texts, {len(failures)} failures"
          + ("" if have_libcbor else " (libcbor not linked: cbor2 alone)"))
    return 1 if failures else 0


sys.exit(main())

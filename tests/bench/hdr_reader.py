"""An independent reader of HdrHistogram's V2 compressed encoding (base64,
zlib, ZigZag LEB128 counts) for the tests: it recomputes the summaries a
record's histograms name, so the C encoder is checked by code that shares
nothing with it.  Problems raise AssertionError.
"""
import base64
import math
import zlib


def fail(msg):
    raise AssertionError(msg)


def zigzag_varints(b):
    i = 0
    while i < len(b):
        v, shift, n = 0, 0, 0
        while True:
            byte = b[i]
            i += 1
            n += 1
            if n == 9:
                v |= byte << 56
                break
            v |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
        yield (v >> 1) ^ -(v & 1)


def decode(obj):
    """(counts as {lowest value of the bucket: (highest value, n)}, header)"""
    raw = base64.b64decode(obj["data"], validate=True)
    if int.from_bytes(raw[:4], "big") != 0x1c849314:
        fail("compression cookie")
    enc = zlib.decompress(raw[8:8 + int.from_bytes(raw[4:8], "big")])
    if int.from_bytes(enc[:4], "big") != 0x1c849313:
        fail("encoding cookie")
    plen = int.from_bytes(enc[4:8], "big")
    sig = int.from_bytes(enc[12:16], "big")
    lowest = int.from_bytes(enc[16:24], "big")
    # HdrHistogram's layout
    sub_count_mag = math.ceil(math.log2(2 * 10 ** sig))
    half_mag = max(sub_count_mag, 1) - 1
    unit = lowest.bit_length() - 1
    half = 1 << half_mag
    buckets = []
    idx = 0
    for v in zigzag_varints(enc[40:40 + plen]):
        if v < 0:
            idx += -v
            continue
        if v:
            bucket = (idx >> half_mag) - 1
            sub = (idx & (half - 1)) + half
            if bucket < 0:
                sub -= half
                bucket = 0
            lo = sub << (bucket + unit)
            width = 1 << (bucket + unit)
            buckets.append((lo, lo + width - 1, v))
        idx += 1
    return buckets, sig


def percentile(obj, buckets, p):
    n = obj["count"]
    if p < 100 and math.ceil(100 / (100 - p) - 1e-9) > n:
        return None
    rank = max(1, math.ceil(p / 100 * n - 1e-9))
    seen = 0
    for lo, hi, c in buckets:
        seen += c
        if seen >= rank:
            return min(max(hi, obj["min"]), obj["max"])
    return obj["max"]


def check_summary(doc, hist_ptr):
    """Every percentile of the summary a histogram names, recomputed."""
    obj = doc
    for k in hist_ptr.strip("/").split("/"):
        obj = obj[k]
    buckets, _ = decode(obj)
    if sum(c for _, _, c in buckets) != obj["count"]:
        fail("%s: counts add up to %d, count %d" %
             (hist_ptr, sum(c for _, _, c in buckets), obj["count"]))
    summ = doc
    for k in hist_ptr.strip("/").split("/")[:-1]:
        summ = summ[k]
    summ = summ[obj["summarizes"]]  # the member beside the histogram
    for key, p in (("p50", 50), ("p90", 90), ("p99", 99), ("p999", 99.9)):
        want = percentile(obj, buckets, p)
        have = summ[key]
        if (want is None) != (have is None) or \
                (want is not None and abs(want / 1000.0 - have) > 1e-9):
            fail("%s %s: record %s, decoded %s" % (hist_ptr, key, have, want))
    return buckets


def slow(buckets, ns):
    """Samples whose bucket lies at or above ns."""
    return sum(c for lo, _, c in buckets if lo >= ns)



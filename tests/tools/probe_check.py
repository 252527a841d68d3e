#!/usr/bin/env python3
"""Checks a machine spec written by collc-probe: the network: section has the
agreed keys with finite values, the fit's errors in the comments are finite
(and within --max-error), and, when asked, the links and factors are the ones
a simulated platform was built with.

  probe_check.py SPEC [--max-error PCT] [--latency L] [--bandwidth B]
                      [--smpi-factors] [--tolerance PCT]

Exit status 0 when every check passes; each failure is printed.
"""
import argparse
import math
import re
import sys

# SMPI 3.32's default smpi/lat-factor and smpi/bw-factor. SMPI looks a
# message up by its payload plus 16 bytes and applies a factor above its
# threshold, so a payload of p bytes takes the factor of the largest
# threshold below p + 16.
SMPI = [(0, 2.01467, 0.812084), (257, 1.95341, 0.338112), (732, 1.9503, 0.341987),
        (1426, 1.61075, 0.608902), (3484, 1.88101, 0.77493), (5776, 2.18796, 1.08739),
        (9376, 2.59299, 0.58729), (15424, 3.48845, 0.697866), (65472, 11.6436, 0.940694)]


def smpi_factors(payload):
    best = SMPI[0]
    for f in SMPI:
        if payload + 16 > f[0]:
            best = f
    return best[1], best[2]


failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


def finite(v, minimum=0.0, strict=False):
    return (isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
            and (v > minimum if strict else v >= minimum))


def load(text):
    try:
        import yaml
    except ImportError:
        return None
    return yaml.safe_load(text)


def check_structure(spec):
    check(isinstance(spec, dict) and list(spec) == ["name", "topology", "network"],
          "top-level keys are name, topology, network: %r" % (list(spec) if isinstance(spec, dict) else spec))
    net = spec.get("network", {})
    check(list(net) == ["links", "injection", "protocol", "nodes"],
          "network keys: %r" % list(net))
    check(isinstance(spec.get("topology"), dict) and "kind" in spec["topology"], "topology has a kind")
    for link in net.get("links", []):
        check(set(link) == {"class", "latency", "bandwidth", "duplex"}, "link keys: %r" % link)
        check(finite(link.get("latency")), "link latency finite: %r" % link)
        check(finite(link.get("bandwidth"), strict=True), "link bandwidth finite: %r" % link)
        check(link.get("duplex") in ("full", "half"), "duplex: %r" % link)
    check(len(net.get("links", [])) >= 1, "at least one link class")
    inj = net.get("injection", {})
    check(set(inj) == {"links", "bandwidth"} and finite(inj.get("links")) and finite(inj.get("bandwidth")),
          "injection: %r" % inj)
    proto = net.get("protocol", {})
    check(list(proto) in (["send_overhead", "bands"], ["send_overhead", "max_piece", "bands"]),
          "protocol keys: %r" % list(proto))
    if "max_piece" in proto:
        check(isinstance(proto["max_piece"], int) and 1 <= proto["max_piece"] <= 1 << 30,
              "max_piece an integer in [1, 2^30]: %r" % proto["max_piece"])
    check(finite(proto.get("send_overhead")), "send_overhead finite")
    bands = proto.get("bands", [])
    check(len(bands) >= 1 and bands[0].get("from") == 0, "bands start at 0")
    froms = [b.get("from") for b in bands]
    check(froms == sorted(set(froms)), "bands sorted without overlap: %r" % froms)
    for b in bands:
        check(set(b) == {"from", "latency_factor", "bandwidth_factor"}, "band keys: %r" % b)
        check(finite(b.get("latency_factor")) and finite(b.get("bandwidth_factor"), strict=True),
              "band factors finite: %r" % b)
    nodes = net.get("nodes", {})
    check(isinstance(nodes.get("processes"), int) and nodes["processes"] >= 1, "processes: %r" % nodes)
    check(nodes.get("placement") in ("block", "cyclic") or isinstance(nodes.get("placement"), list),
          "placement: %r" % nodes)
    if "intra" in nodes:
        check(finite(nodes["intra"].get("latency")) and finite(nodes["intra"].get("bandwidth"), strict=True),
              "intra-node link finite: %r" % nodes["intra"])


def check_keys_by_text(text):
    """Without PyYAML: the keys in the order and indentation written."""
    for key in ["name:", "topology:", "network:", "  links:", "  injection:", "  protocol:",
                "    send_overhead:", "    bands:", "  nodes:"]:
        check(re.search(r"^" + re.escape(key), text, re.M), "key %r" % key.strip())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("spec")
    ap.add_argument("--max-error", type=float)
    ap.add_argument("--latency", type=float)
    ap.add_argument("--bandwidth", type=float)
    ap.add_argument("--smpi-factors", action="store_true")
    ap.add_argument("--tolerance", type=float, default=5.0)
    a = ap.parse_args()
    text = open(a.spec, encoding="utf-8").read()

    spec = load(text)
    if spec is None:
        print("probe_check: no PyYAML; checking keys by text")
        check_keys_by_text(text)
    else:
        check_structure(spec)

    m = re.search(r"^# Largest error (\S+)% over every measured median\.$", text, re.M)
    if check(m is not None, "the comments give the largest error"):
        worst = float(m.group(1))
        check(math.isfinite(worst), "largest error finite: %s" % m.group(1))
        if a.max_error is not None:
            check(worst <= a.max_error, "largest error %.2f%% above %.2f%%" % (worst, a.max_error))
        print("largest error %.2f%%" % worst)
    rows = re.findall(r"^#\s+[A-Z]\s+\d+\s+(\S+)\s+(\S+)\s+(\S+)%$", text, re.M)
    check(len(rows) > 0, "the comments hold the table of errors")
    for measured, predicted, err in rows:
        check(all(math.isfinite(float(v)) for v in (measured, predicted, err)),
              "finite row: %s %s %s" % (measured, predicted, err))

    tol = a.tolerance / 100
    if spec is not None:
        links = spec["network"]["links"]
        if a.latency is not None:
            for link in links:
                check(abs(link["latency"] - a.latency) <= tol * a.latency,
                      "latency %s, expected %s" % (link["latency"], a.latency))
        if a.bandwidth is not None:
            for link in links:
                check(abs(link["bandwidth"] - a.bandwidth) <= tol * a.bandwidth,
                      "bandwidth %s, expected %s" % (link["bandwidth"], a.bandwidth))
        if a.smpi_factors:
            for b in spec["network"]["protocol"]["bands"]:
                lf, bf = smpi_factors(b["from"])
                check(abs(b["latency_factor"] - lf) <= tol * lf,
                      "band from %d: latency factor %s, SMPI %s" % (b["from"], b["latency_factor"], lf))
                check(abs(b["bandwidth_factor"] - bf) <= tol * bf,
                      "band from %d: bandwidth factor %s, SMPI %s" % (b["from"], b["bandwidth_factor"], bf))

    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

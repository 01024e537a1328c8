"""Checks the SVG of `duet inspect --svg` against `duet inspect --json` of the
same program: every partition is a cluster labelled with its id, backend and
op count and filled with its backend's colour; every op is a node in it; each
Vulkan layout conversion is drawn as one.

usage: python3 check_svg.py graph.svg inspect.json
"""
import json
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
FILL = {"vulkan": "#fde3cf", "xnnpack": "#dbeafe", "portable": "#ececec"}


def main():
    root = ET.parse(sys.argv[1]).getroot()
    program = json.load(open(sys.argv[2]))
    tensors = {t["id"]: t for t in program["tensors"]}

    clusters, nodes = {}, {}
    for group in root.iter(SVG + "g"):
        title = group.find(SVG + "title")
        if title is None:
            continue
        texts = " ".join(t.text or "" for t in group.iter(SVG + "text"))
        if group.get("class") == "cluster":
            fill = group.find(SVG + "path")
            if fill is None:
                fill = group.find(SVG + "polygon")
            clusters[title.text] = (texts, fill.get("fill") if fill is not None else None)
        elif group.get("class") == "node":
            nodes[title.text] = texts

    errors = []
    conversions = 0
    for p in program["partitions"]:
        name = f"cluster_p{p['id']}"
        if name not in clusters:
            errors.append(f"partition {p['id']} has no cluster")
            continue
        label, fill = clusters[name]
        want = f"partition {p['id']}: {p['backend']} ({len(p['ops'])} ops)"
        if want not in label:
            errors.append(f"{name}: label {label!r}, expected {want!r}")
        if fill != FILL[p["backend"]]:
            errors.append(f"{name}: fill {fill}, expected {FILL[p['backend']]}")
        for index, op in enumerate(p["ops"]):
            node = f"p{p['id']}_op{index}"
            if node not in nodes:
                errors.append(f"{node} ({op['op']}) is not drawn")
                continue
            ins, outs = op["inputs"], op["outputs"]
            # Both tensors held by the Vulkan delegate: one inside a chain of
            # movements is not (the device never holds it), and the clone
            # reading it is no conversion.
            converts = (p["backend"] == "vulkan" and op["op"] == "aten.clone"
                        and len(ins) == 1 and len(outs) == 1
                        and tensors[ins[0]]["backend"] == "vulkan"
                        and tensors[outs[0]]["backend"] == "vulkan"
                        and (tensors[ins[0]].get("storage"), tensors[ins[0]].get("layout"))
                        != (tensors[outs[0]].get("storage"), tensors[outs[0]].get("layout")))
            drawn = nodes[node].startswith("layout convert")
            conversions += converts
            if converts != drawn:
                errors.append(f"{node} ({op['op']}): layout conversion {converts}, drawn as one {drawn}")
    extra = [c for c in clusters if c not in {f"cluster_p{p['id']}" for p in program["partitions"]}]
    if extra:
        errors.append(f"clusters without a partition: {extra}")
    if errors:
        sys.exit("\n".join(errors))
    backends = sorted({p["backend"] for p in program["partitions"]})
    print(f"ok: {len(program['partitions'])} partitions ({', '.join(backends)}), "
          f"{sum(len(p['ops']) for p in program['partitions'])} ops, "
          f"{conversions} layout conversions drawn")


if __name__ == "__main__":
    main()

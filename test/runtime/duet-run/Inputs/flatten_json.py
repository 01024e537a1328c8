"""Prints the JSON object on stdin one leaf per line, `path value`, with
paths like `programs.0.runs` and lists of numbers or strings kept whole
(`deviating_runs [6, 13]`), so that FileCheck can check fields by name. Fails
on text that is not JSON.
"""
import json
import sys


def flatten(value, path):
    if isinstance(value, dict):
        for key, item in value.items():
            yield from flatten(item, f"{path}.{key}" if path else key)
    elif isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        for index, item in enumerate(value):
            yield from flatten(item, f"{path}.{index}")
    else:
        yield f"{path} {json.dumps(value)}"


for line in flatten(json.load(sys.stdin), ""):
    print(line)

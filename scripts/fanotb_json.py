"""Reading `fanotb --json` output, shared by the scripts that drive fanotb."""

import json


def objects(text):
    """The JSON objects of a stream of them (progress lines, then the report, then
    a failure object if any), up to a line cut short by a kill."""
    dec, i, out = json.JSONDecoder(), 0, []
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return out
        try:
            obj, i = dec.raw_decode(text, i)
        except json.JSONDecodeError:
            return out
        out.append(obj)

"""Device strings as TensorFlow spells them: `/cpu:0` becomes `/device:CPU:0`; nested scopes merge."""

from __future__ import annotations

_FIELDS = ("job", "replica", "task", "device_type", "device_index")


def parse_device(spec: str | None) -> dict:
    """Parses `/job:w/replica:0/task:1/device:CPU:0` (or the short `/cpu:0`) into its fields."""
    fields: dict = {}
    if not spec:
        return fields
    for part in spec.split("/"):
        if not part:
            continue
        pieces = part.split(":")
        key = pieces[0].lower()
        if key in ("job", "replica", "task") and len(pieces) == 2:
            fields[key] = pieces[1] if key == "job" else int(pieces[1])
        elif key == "device" and len(pieces) == 3:
            fields["device_type"] = pieces[1].upper()
            fields["device_index"] = None if pieces[2] == "*" else int(pieces[2])
        elif key in ("cpu", "gpu", "tpu") and len(pieces) == 2:
            fields["device_type"] = key.upper()
            fields["device_index"] = None if pieces[1] == "*" else int(pieces[1])
        else:
            raise ValueError(f"Unknown attribute: '{part}' in '{spec}'")
    return fields


def device_string(fields: dict) -> str:
    out = ""
    if fields.get("job") is not None:
        out += f"/job:{fields['job']}"
    if fields.get("replica") is not None:
        out += f"/replica:{fields['replica']}"
    if fields.get("task") is not None:
        out += f"/task:{fields['task']}"
    if fields.get("device_type") is not None:
        index = fields.get("device_index")
        out += f"/device:{fields['device_type']}:{'*' if index is None else index}"
    return out


def merge_devices(outer: str, inner: str) -> str:
    """The inner scope's fields win; fields it leaves out come from the outer scope."""
    merged = parse_device(outer)
    merged.update({k: v for k, v in parse_device(inner).items() if v is not None or k == "device_index"})
    return device_string(merged)


def canonical_device(spec: str | None) -> str:
    return device_string(parse_device(spec))

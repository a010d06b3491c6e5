"""The three-way merge of one record (schema §5.3–§5.5; Goldens/ENGINE.md, The merge rules).

`merge(collection, base, local, remote, local_created_at)` decides every top-level field of the
record from the document as last agreed with the server (`base`, None when the two sides never
agreed), the device's row (`local`) and the pulled document (`remote`). Absent and null read alike;
the merged document keeps the winning side's form (absent stays absent). The merged document's
`updatedAt` is the remote one: it becomes the row's agreed document.
"""
import schema
from values import field, micros, same

_ABSENT = object()

EARLIEST = {("flights", "createdAt"), ("flights", "importedAt"), ("tasks", "importedAt"), ("mapFiles", "importedAt")}
LATEST_CLEAR_TRAVELS = {("flights", "lastOpenedAt"), ("recentCompetitions", "lastOpenedAt"), ("homebases", "usedAt")}
BLOB_MAPS = {("flights", "igc"), ("mapFiles", "content")}


def _or(value, default):
    """A field's value as a reader reads it: absent or null is the default (for a non-nullable field)."""
    return default if value is None else value


def is_tombstone(document):
    return bool(field(document, "deleted"))


def client_time(document):
    value = field(document, "clientUpdatedAt")
    return micros(value) if value is not None else -1


class _Sides:
    """One field seen from the three documents."""

    def __init__(self, base, local, remote, name):
        self.name = name
        self.base_known = base is not None
        self.local, self.remote = local, remote
        self.lv, self.rv = field(local, name), field(remote, name)
        self.bv = field(base, name)
        self.local_changed = not self.base_known or not same(self.lv, self.bv)
        self.remote_changed = not self.base_known or not same(self.rv, self.bv)

    def take(self, side):
        document = self.local if side == "local" else self.remote
        return document.get(self.name, _ABSENT)

    def three_way(self, tie="remote"):
        """Changed on one side only: that side; on both: the later clientUpdatedAt, equal clocks to `tie`."""
        if same(self.lv, self.rv):
            return self.take("remote")
        if self.local_changed and not self.remote_changed:
            return self.take("local")
        if self.remote_changed and not self.local_changed:
            return self.take("remote")
        local_time, remote_time = client_time(self.local), client_time(self.remote)
        if local_time == remote_time:
            return self.take(tie)
        return self.take("local" if local_time > remote_time else "remote")


def _earliest(sides):
    times = [v for v in (sides.lv, sides.rv) if v is not None]
    if not times:
        return sides.take("remote")
    return min(times, key=micros)


def _latest_clear_travels(sides):
    # One side changed (a clear included): that side. Both changed: the later date; a clear against a
    # new date loses (pin latestClearAgainstNewDate).
    if same(sides.lv, sides.rv):
        return sides.take("remote")
    if sides.local_changed and not sides.remote_changed:
        return sides.take("local")
    if sides.remote_changed and not sides.local_changed:
        return sides.take("remote")
    if sides.lv is None:
        return sides.take("remote")
    if sides.rv is None:
        return sides.take("local")
    return sides.take("local" if micros(sides.lv) > micros(sides.rv) else "remote")


def _ranked(sides, rank_local, rank_remote):
    # The higher rank wins whole; at equal rank the three-way rule, both changed: local (pin rankedMergeThreeWay).
    if rank_local != rank_remote:
        return "local" if rank_local > rank_remote else "remote"
    if same(sides.lv, sides.rv):
        return "remote"
    if sides.local_changed and not sides.remote_changed:
        return "local"
    if sides.remote_changed and not sides.local_changed:
        return "remote"
    return "local"


def summary_rank(summary):
    return summary.get("analysisVersion", 0) if isinstance(summary, dict) else -1


def preview_rank(version):
    """0 (not made yet) < any negative (failed) < a positive version, higher first (schema §5.5)."""
    version = version or 0
    if version == 0:
        return (0, 0)
    if version < 0:
        return (1, 0)
    return (2, version)


def _blob_map(sides, base):
    if sides.lv is None and sides.rv is None:
        return sides.take("remote")
    if sides.lv is None:
        return sides.take("remote")
    if sides.rv is None:
        return sides.take("local")
    if sides.lv.get("path") != sides.rv.get("path"):
        return sides.three_way()  # two objects: the map whole (pin blobMapOtherObject)
    base_map = field(base, sides.name) if base is not None else None
    if base_map is not None and base_map.get("path") != sides.lv.get("path"):
        base_map = None
    merged = {}
    local_wins_tie = client_time(sides.local) > client_time(sides.remote)
    for key in sorted(set(sides.lv) | set(sides.rv)):
        if key == "uploaded":  # OR-ed: both maps name one object (schema §5.5)
            merged[key] = bool(sides.lv.get("uploaded")) or bool(sides.rv.get("uploaded"))
            continue
        mine, theirs = sides.lv.get(key), sides.rv.get(key)
        if base_map is None:
            local_changed = remote_changed = True
        else:
            local_changed = not same(mine, base_map.get(key))
            remote_changed = not same(theirs, base_map.get(key))
        if same(mine, theirs) or (remote_changed and not local_changed):
            value = sides.rv.get(key, _ABSENT)
        elif local_changed and not remote_changed:
            value = sides.lv.get(key, _ABSENT)
        else:
            value = sides.lv.get(key, _ABSENT) if local_wins_tie else sides.rv.get(key, _ABSENT)
        if value is not _ABSENT:
            merged[key] = value
    return merged


def _settings_values(local, remote):
    merged = {}
    local_values, remote_values = field(local, "values") or {}, field(remote, "values") or {}
    for key in sorted(set(local_values) | set(remote_values)):
        mine, theirs = local_values.get(key), remote_values.get(key)
        if mine is None:
            merged[key] = theirs
        elif theirs is None:
            merged[key] = mine
        else:  # the larger t wins, the same t goes to the cloud (schema §5.3, §5.5)
            merged[key] = mine if mine.get("t", 0) > theirs.get("t", 0) else theirs
    return merged


def _tombstone(base, local, remote):
    """Both sides tombstones: the common fields by the three-way rule."""
    merged = {}
    for name in sorted(set(local) | set(remote) | (set(base) if base else set())):
        if name == "updatedAt":
            continue
        value = _Sides(base, local, remote, name).three_way()
        if value is not _ABSENT:
            merged[name] = value
    merged["clientUpdatedAt"] = max((local.get("clientUpdatedAt"), remote.get("clientUpdatedAt")),
                                    key=lambda v: micros(v) if v is not None else -1)
    if "updatedAt" in remote:
        merged["updatedAt"] = remote["updatedAt"]
    return merged


def merge(collection, base, local, remote, local_created_at=None):
    """Returns (merged document, revived). `local_created_at`: when the pilot made the local row on this
    device since the last agreement (microseconds), else None; it decides a revival (schema §5.4)."""
    local_dead, remote_dead = is_tombstone(local), is_tombstone(remote)
    if remote_dead and not local_dead:
        deleted_at = field(remote, "deletedAt")
        if local_created_at is not None and deleted_at is not None and local_created_at > micros(deleted_at):
            return dict(local, updatedAt=remote.get("updatedAt")), True
        if base is not None and is_tombstone(base) and same(field(base, "deletedAt"), deleted_at):
            return dict(local, updatedAt=remote.get("updatedAt")), True  # revived here against a known tombstone
        return dict(remote), False
    if local_dead and not remote_dead:
        if base is not None and is_tombstone(base) and same(field(base, "deletedAt"), field(local, "deletedAt")):
            return dict(remote), False  # revived elsewhere: the local tombstone is the old one
        return dict(local, updatedAt=remote.get("updatedAt")), False  # the delete wins over an edit
    if local_dead and remote_dead:
        return _tombstone(base, local, remote), False

    merged = {}
    names = set(local) | set(remote) | (set(base) if base else set())
    names -= {"updatedAt", "clientUpdatedAt", "trackPreview", "trackPreviewVersion"}
    for name in sorted(names):
        sides = _Sides(base, local, remote, name)
        key = (collection, name)
        if key == ("flights", "inLogbook"):
            value = bool(sides.lv) or bool(sides.rv)
        elif key in EARLIEST:
            value = _earliest(sides)
        elif key in LATEST_CLEAR_TRAVELS:
            value = _latest_clear_travels(sides)
        elif key == ("flights", "summary"):
            value = sides.take(_ranked(sides, summary_rank(sides.lv), summary_rank(sides.rv)))
        elif key in BLOB_MAPS:
            value = _blob_map(sides, base)
        elif key == ("settings", "values"):
            value = _settings_values(local, remote)
        else:
            # Values compare as a reader reads them: an absent field is null, or its default when it
            # is not nullable (merge table `* *`), so a side writing that default has not changed it.
            default = schema.DEFAULTS.get(collection, {}).get(name)
            if default is not None and base is not None:
                lv, rv, bv = (_or(v, default) for v in (sides.lv, sides.rv, sides.bv))
                sides.local_changed, sides.remote_changed = not same(lv, bv), not same(rv, bv)
                if same(lv, rv):
                    sides.local_changed = False
            value = sides.three_way()
            if key == ("mapFiles", "contentHash") and value == "":
                value = None  # an empty hash is null, never "" (schema §5.5)
        if value is not _ABSENT:
            merged[name] = value

    if collection == "flights" and any(n in d for d in (local, remote) for n in ("trackPreview", "trackPreviewVersion")):
        version = _Sides(base, local, remote, "trackPreviewVersion")
        preview = _Sides(base, local, remote, "trackPreview")
        pair = _Sides(None, local, remote, "trackPreviewVersion")
        pair.local_changed = version.local_changed or preview.local_changed
        pair.remote_changed = version.remote_changed or preview.remote_changed
        pair.lv = [version.lv, preview.lv]
        pair.rv = [version.rv, preview.rv]
        if same(pair.lv, pair.rv):
            winner = "remote"
        else:
            winner = _ranked(pair, preview_rank(version.lv), preview_rank(version.rv))
        source = local if winner == "local" else remote
        for name in ("trackPreview", "trackPreviewVersion"):
            if name in source:
                merged[name] = source[name]

    times = [v for v in (field(local, "clientUpdatedAt"), field(remote, "clientUpdatedAt")) if v is not None]
    if times:
        merged["clientUpdatedAt"] = max(times, key=micros)  # pin mergedClientTime
    if "updatedAt" in remote:
        merged["updatedAt"] = remote["updatedAt"]
    return merged, False

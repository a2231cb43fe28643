"""What must differ between two servers, taken out of their answers; and how two answers differ.

Normalized (and nothing else):
- uids and resourceVersions, by their order of appearance per object: an object's uid becomes
  <uid:NAMESPACE/NAME#k> (k counts the objects that had that name: a re-created one is #2) and its
  resourceVersion <rv:NAMESPACE/NAME#k> (k counts the versions of that name seen so far), so that
  one object more on one server does not shift every later number; an ownerReference's or a
  Status's uid, and a resourceVersion quoted in a message, get the label of the object they
  belong to (<uid:?> / <rv> when no answer showed it); a list's or a bookmark's resourceVersion,
  which on kube-apiserver is etcd's revision and moves with writes the client never sees (its
  own leases), is <rv:list> / <rv:bookmark>;
- server-set timestamps (creationTimestamp, deletionTimestamp, lastTransitionTime, ...): <time>;
- continue tokens: <continue> (the pages they lead to are compared as requests of their own);
- names made from generateName: the prefix and <suffix>;
- the server's version (/version): every value is <version>;
- the time of each managedFields entry: <time>, and with it the order the times give the entries
  (kube-apiserver sorts them by operation, time in seconds, manager, apiVersion, subresource:
  writes a second apart or not reorder them), the entries then sorted without the time; the
  entries, their managers, operations, apiVersions, subresources and fieldsV1 are compared as
  they are;
- the order of a validation failure's causes (kube-apiserver's follows Go's map order, which
  changes from run to run): the causes, and the message that lists them, sorted;
- the order of a discovery document's resources (kube-apiserver's changes from run to run);
- a YAML answer is parsed, then normalized as JSON (as {"yaml": value}).
"""

import copy
import json
import re

TIME_KEYS = {"creationTimestamp", "deletionTimestamp", "lastTransitionTime", "lastUpdateTime",
             "lastHeartbeatTime", "lastProbeTime"}
# Where messages quote resourceVersions: "resourceVersion: 12", "too old resource version: 12 (40)",
# "the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (40)".
RV_IN_MESSAGE = [re.compile(r"(?i)(resource ?version[\"': =]{0,4})(\d+)"),
                 re.compile(r"(?i)(too old resource version: <[^>]*> \()(\d+)"),
                 re.compile(r"(?i)(resourceVersion in (?:record|the precondition) \()(\d+)")]
# "Too large resource version: 99, current: N": N is etcd's revision when the request came, which
# moves with writes the client never sees, as a list's resourceVersion does.
CURRENT_RV = re.compile(r"(, current: )\d+")


class Normalizer:
    """Per server: the labels given so far to uids and resourceVersions."""

    def __init__(self):
        self.uid_labels = {}   # uid -> label
        self.uid_counts = {}   # object key -> objects seen with that key
        self.rv_labels = {}    # resourceVersion -> label
        self.rv_counts = {}    # object key -> versions seen

    def uid(self, key, value):
        if value not in self.uid_labels:
            if key is None:
                return "<uid:?>"
            self.uid_counts[key] = self.uid_counts.get(key, 0) + 1
            self.uid_labels[value] = "<uid:%s#%d>" % (key, self.uid_counts[key])
        return self.uid_labels[value]

    def rv(self, key, value):
        if value not in self.rv_labels:
            self.rv_counts[key] = self.rv_counts.get(key, 0) + 1
            self.rv_labels[value] = "<rv:%s#%d>" % (key, self.rv_counts[key])
        return self.rv_labels[value]

    def message(self, text):
        def mapped(match):
            return match.group(1) + self.rv_labels.get(match.group(2), "<rv>")
        for pattern in RV_IN_MESSAGE:
            text = pattern.sub(mapped, text)
        text = CURRENT_RV.sub(r"\1<rv:current>", text)
        for uid, label in self.uid_labels.items():
            text = text.replace(uid, label)
        return text

    def answer(self, path, status, body):
        """(status, normalized body) for one answer; body is parsed JSON, a list of watch events,
        or raw text."""
        body = copy.deepcopy(body)
        if path.split("?")[0].rstrip("/") == "/version" and isinstance(body, dict):
            body = {key: "<version>" for key in body}
        elif isinstance(body, list):  # watch events
            for event in body:
                if isinstance(event, dict) and isinstance(event.get("object"), dict):
                    bookmark = event.get("type") == "BOOKMARK"
                    meta = event["object"].get("metadata")
                    if bookmark and isinstance(meta, dict) and "resourceVersion" in meta:
                        meta["resourceVersion"] = "<rv:bookmark>"
                    self.walk(event["object"])
        elif isinstance(body, (dict, list)):
            self.walk(body)
        return status, body

    def metadata(self, value, meta):
        entries = meta.get("managedFields")
        if isinstance(entries, list):
            for entry in entries:
                if isinstance(entry, dict) and isinstance(entry.get("time"), str) and entry["time"]:
                    entry["time"] = "<time>"
            if all(isinstance(entry, dict) for entry in entries):
                entries.sort(key=lambda e: tuple(str(e.get(k, "")) for k in
                                                 ("operation", "manager", "apiVersion", "subresource")))
        prefix, name = meta.get("generateName"), meta.get("name")
        if prefix and isinstance(name, str) and name.startswith(prefix) and name != prefix:
            meta["name"] = prefix + "<suffix>"
        key = None
        if isinstance(meta.get("name"), str):
            key = (meta["namespace"] + "/" if isinstance(meta.get("namespace"), str) else "") \
                + meta["name"]
        if isinstance(meta.get("uid"), str) and meta["uid"]:
            meta["uid"] = self.uid(key, meta["uid"])
        rv = meta.get("resourceVersion")
        is_list = isinstance(value.get("items"), list)
        if isinstance(rv, str) and rv and rv[0] != "<":
            meta["resourceVersion"] = "<rv:list>" if is_list or key is None else self.rv(key, rv)
        if meta.get("continue"):
            meta["continue"] = "<continue>"

    def walk(self, value):
        if isinstance(value, list):
            for item in value:
                self.walk(item)
            return
        if not isinstance(value, dict):
            return
        if isinstance(value.get("metadata"), dict):
            self.metadata(value, value["metadata"])
        for key, item in list(value.items()):
            if key == "uid" and isinstance(item, str) and item and item[0] != "<":
                value[key] = self.uid(None, item)
            elif key in TIME_KEYS and isinstance(item, str) and item:
                value[key] = "<time>"
            elif key == "message" and isinstance(item, str):
                value[key] = self.message(item)
            else:
                self.walk(item)
        if value.get("kind") == "Status":
            sort_causes(value)
        if value.get("kind") == "APIResourceList" and isinstance(value.get("resources"), list):
            value["resources"].sort(key=lambda r: json.dumps(r, sort_keys=True))


def sort_causes(status):
    causes = (status.get("details") or {}).get("causes")
    if not isinstance(causes, list) or len(causes) < 2:
        return
    if not all(isinstance(c, dict) for c in causes):
        return

    def listed(items):
        return ", ".join("%s: %s" % (c.get("field", ""), c.get("message", "")) for c in items)
    ordered = sorted(causes, key=lambda c: json.dumps(c, sort_keys=True))
    message = status.get("message")
    if isinstance(message, str) and listed(causes) in message:
        status["message"] = message.replace(listed(causes), listed(ordered))
    status["details"]["causes"] = ordered


def differences(real, embedded, path="", limit=12):
    """The paths at which two normalized values differ, as short lines (at most `limit`)."""
    out = []

    def short(v):
        text = json.dumps(v, sort_keys=True)
        return text if len(text) <= 160 else text[:157] + "..."

    def walk(a, b, where):
        if len(out) >= limit:
            return
        if isinstance(a, dict) and isinstance(b, dict):
            for key in sorted(set(a) | set(b)):
                sub = "%s.%s" % (where, key) if where else key
                if key not in b:
                    out.append("%s: %s (real) / absent (embedded)" % (sub, short(a[key])))
                elif key not in a:
                    out.append("%s: absent (real) / %s (embedded)" % (sub, short(b[key])))
                else:
                    walk(a[key], b[key], sub)
                if len(out) >= limit:
                    return
        elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            for i, (x, y) in enumerate(zip(a, b)):
                walk(x, y, "%s[%d]" % (where, i))
        elif a != b:
            if isinstance(a, list) and isinstance(b, list):
                names_a, names_b = item_names(a), item_names(b)
                if names_a is not None and names_b is not None:
                    only = ["only on %s: %s" % (side, ", ".join(sorted(names)))
                            for side, names in (("real", names_a - names_b),
                                                ("embedded", names_b - names_a)) if names]
                    detail = "; ".join(only) or "the same names: %s" % ", ".join(sorted(names_a))
                else:
                    detail = "%s / %s" % (short(a), short(b))
                out.append("%s: %d items (real) / %d items (embedded): %s"
                           % (where or "(events)", len(a), len(b), detail))
            else:
                out.append("%s: %s (real) / %s (embedded)" % (where or "(body)", short(a), short(b)))
    walk(real, embedded, path)
    return out


def item_names(items):
    """The names of a list of objects or watch events (TYPE name), or None when they have none."""
    names = set()
    for item in items:
        if not isinstance(item, dict):
            return None
        thing = item.get("object") if "type" in item else item
        meta = thing.get("metadata") if isinstance(thing, dict) else None
        if not isinstance(meta, dict) or not isinstance(meta.get("name"), str):
            if isinstance(item.get("field"), str):  # a Status cause
                names.add("%s: %s" % (item["field"], item.get("message", "")))
                continue
            return None
        names.add(("%s " % item["type"] if "type" in item else "") + meta["name"])
    return names

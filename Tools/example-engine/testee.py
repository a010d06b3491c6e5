#!/usr/bin/env python3
"""An example sync-engine testee for vulture-conformance, in Python with the standard library only.

It answers the engine operations of the testee protocol — `engine.reset`, `engine.step`,
`engine.rows` (Goldens/protocol/README.md, Engine operations) — with a sync engine written from the
published prose alone: Goldens/ENGINE.md, Goldens/SCHEMA.md, Goldens/FORMAT.md and the sync schema
(000). The engines reach Firestore and Cloud Storage only through server requests that this process
writes on stdout while a case is open; the runner answers each on stdin. Every other operation is
answered `skipped`, so run it with `--only scenarios`:

    swift run vulture-conformance run --testee 'python3 Tools/example-engine/testee.py' \
        --only scenarios --failure-list Tools/example-engine/failure-list.txt

Start with engine.py (one device's engine) and merge.py (the three-way merge); README.md next to
this file says what they show and how to start your own.
"""
import json
import os
import sys

from engine import Device, RequestFailed
from values import micros, to_bytes

PROTOCOL_VERSION = 1
# VULTURE_EXAMPLE_TRACE=N writes every server request and answer to stderr, cut at N characters.
TRACE = int(os.environ.get("VULTURE_EXAMPLE_TRACE", "0") or 0)


class ProtocolBroken(Exception):
    pass


class Server:
    """The runner's in-memory Firestore and Cloud Storage, reached by server requests of the open case."""

    def __init__(self, stdin, stdout):
        self.stdin, self.stdout = stdin, stdout
        self.seq = None

    def device(self, name):
        server = self

        class DeviceServer:
            def request(self, op, **members):
                return server.request(name, op, members)

        return DeviceServer()

    def request(self, device, op, members):
        message = {"seq": self.seq, "server": dict(members, op=op, device=device)}
        if TRACE:
            sys.stderr.write(f"{device} -> {json.dumps(message['server'], ensure_ascii=False)[:TRACE]}\n")
        self.stdout.write(json.dumps(message, ensure_ascii=False) + "\n")
        self.stdout.flush()
        line = self.stdin.readline()
        if not line:
            raise ProtocolBroken("the runner closed stdin during a server request")
        answer = json.loads(line)
        if answer.get("type") != "server" or answer.get("seq") != self.seq:
            raise ProtocolBroken(f"expected the answer to a server request, got {line[:200]}")
        if TRACE:
            sys.stderr.write(f"{device} <- {json.dumps(answer, ensure_ascii=False)[:TRACE]}\n")
        if "error" in answer:
            raise RequestFailed(answer["error"]["code"], answer["error"].get("message", ""))
        return answer["result"]


class Scenario:
    """The devices of the running scenario (engine.reset makes them)."""

    def __init__(self, server):
        self.server = server
        self.devices = {}

    def reset(self, i):
        self.devices = {}
        start = micros(i["start"])
        for config in i["devices"]:
            self.devices[config["name"]] = Device(self.server.device(config["name"]), config, i["uid"],
                                                  i["database"], start, i["pageSize"])
        return {}

    def step(self, i):
        step = i["step"]
        op = step["op"]
        if op == "advance":
            moved = [self.devices[step["device"]]] if step.get("device") else self.devices.values()
            for device in moved:
                device.clock += step["seconds"] * 1_000_000 + step.get("microseconds", 0)
            return {"error": None}
        device = self.devices[step["device"]]
        if op in ("sync", "pull", "push"):
            return {"error": device.run(getattr(device, op))}
        try:
            if op == "importFlight":
                device.import_flight(to_bytes(step["igc"]), step.get("fields", {}))
            elif op == "importMapFile":
                device.import_map_file(to_bytes(step["content"]), step.get("fields", {}))
            elif op == "save":
                device.save(step["collection"], step.get("id"), step.get("changes", {}), step.get("fill"))
            elif op == "delete":
                device.delete(step["collection"], step["id"])
            elif op == "open":
                return {"error": device.open_flight(step["id"])}
            elif op == "restart":
                device.restart()
            elif op == "entitlements":
                device.entitlements = list(step["entitlements"])
            else:
                return {"error": f"this engine does not know the step {op}"}
        except (ValueError, KeyError) as refusal:
            return {"error": f"refused: {refusal}"}
        return {"error": None}

    def rows(self, i):
        return {"rows": self.devices[i["device"]].answer_rows(i["collection"])}


def main():
    server = Server(sys.stdin, sys.stdout)
    scenario = Scenario(server)
    operations = {"engine.reset": scenario.reset, "engine.step": scenario.step, "engine.rows": scenario.rows}
    while True:
        line = sys.stdin.readline()
        if not line:
            return 0
        request = json.loads(line)
        kind = request.get("type")
        if kind == "start":
            if request.get("protocolVersion") != PROTOCOL_VERSION:
                print(json.dumps({"type": "error", "error": {"code": "protocol.unsupported-version",
                                                             "message": f"this testee speaks version {PROTOCOL_VERSION}"}}),
                      flush=True)
                return 1
            reply = {"type": "started", "protocolVersion": PROTOCOL_VERSION,
                     "implementation": "example-engine (Python, standard library) 1.0"}
        elif kind == "stop":
            return 0
        else:
            seq = request["seq"]
            operation = operations.get(request["op"])
            if operation is None:
                reply = {"seq": seq, "skipped": f"this example implements no {request['op']}"}
            else:
                server.seq = seq
                reply = {"seq": seq, "output": operation(request["input"])}
                server.seq = None
        sys.stdout.write(json.dumps(reply, ensure_ascii=False) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())

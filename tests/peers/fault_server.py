"""A small MCP stdio server, standard library only, that misbehaves on request.

The probe tests drive it through the environment:

  FAULT_TOOLS      JSON list of tool objects to serve (default: one plain tool)
  FAULT_PAGE_SIZE  tools per tools/list page (default: all on one page)
  FAULT_MODES      comma-separated faults, any of:
                     interleave  before each answer, send a notification, a ping and an
                                 unknown request, and insist on correct answers to both
                     ask         before the tools/list answer, ask the client for roots/list,
                                 sampling/createMessage and elicitation/create (the answers
                                 are recorded, not judged)
                     orphan      on tools/list, start a grandchild that keeps stdout open and
                                 sleeps, and exit with status 5 (its pid goes to FAULT_PIDFILE.child)
                     huge        on tools/list, write FAULT_HUGE bytes (default 1000000) with
                                 no newline, then hang
                     flood       on tools/list, send 200000 pings without reading the
                                 answers, then hang
                     deep-answer answer tools/list with a tool nested 200 levels deep
                     deep-notice before the tools/list answer, send a notification nested
                                 200 levels deep
                     garbage     write lines that are not JSON before each answer
                     crash       on tools/list, write to stderr and exit with status 7
                     hang        on tools/list, never answer, ignore end of input and SIGTERM
                     loop        every tools/list page names the same nextCursor
                     error       answer tools/list with JSON-RPC error -32603
                     linger      keep running after stdin closes
                     usage       before reading anything, write "flag provided but not
                                 defined: -bogus" and FAULT_USAGE (default 165) lines of
                                 usage text to stderr, as Go's flag package does, and exit 2
                     child       on initialize, start a grandchild that ignores SIGTERM,
                                 holds none of the pipes, fills FAULT_CHILD_MB (default 256)
                                 MiB of memory, so that even SIGKILL takes it a moment to
                                 die, and sleeps (its pid goes to FAULT_PIDFILE.child once
                                 the memory is filled); the server itself behaves
  FAULT_PROTOCOL   protocol version to answer initialize with (default: the offered one)
  FAULT_PIDFILE    file to write this process's id to
  FAULT_RECORD     file to append every message received to, one JSON per line

It is strict where a client could go wrong: tools/list before notifications/initialized,
or a bad answer to its ping, ends it with an error on stderr and exit status 9.
"""

import json
import os
import signal
import sys
import time

MODES = set(filter(None, os.environ.get("FAULT_MODES", "").split(",")))
TOOLS = json.loads(os.environ.get("FAULT_TOOLS", '[{"name": "only", "inputSchema": {"type": "object"}}]'))
PAGE_SIZE = int(os.environ.get("FAULT_PAGE_SIZE", "0")) or max(len(TOOLS), 1)
RECORD = os.environ.get("FAULT_RECORD")


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def receive():
    line = sys.stdin.readline()
    if not line:
        return None
    message = json.loads(line)
    if RECORD:
        with open(RECORD, "a") as record:
            record.write(json.dumps(message) + "\n")
    return message


def die(reason):
    sys.stderr.write(f"fault_server: {reason}\n")
    sys.stderr.flush()
    sys.exit(9)


def expect_answer(request_id, want_error_code=None):
    """Reads until the client answers `request_id`, and checks the answer."""
    while True:
        message = receive()
        if message is None:
            die(f"input ended before an answer to {request_id!r}")
        if message.get("id") != request_id or "method" in message:
            die(f"expected the answer to {request_id!r}, got {message!r}")
        if want_error_code is None and message.get("result") != {}:
            die(f"bad answer to ping: {message!r}")
        if want_error_code is not None and message.get("error", {}).get("code") != want_error_code:
            die(f"bad answer to an unknown request: {message!r}")
        return


def before_answer(counter):
    if "garbage" in MODES:
        sys.stdout.write("Starting server... this line is not JSON\n")
        sys.stdout.write("{broken json\n")
        sys.stdout.flush()
    if "interleave" in MODES:
        send({"jsonrpc": "2.0", "method": "notifications/message",
              "params": {"level": "info", "data": "hello"}})
        ping_id = f"ping-{counter}"
        send({"jsonrpc": "2.0", "id": ping_id, "method": "ping"})
        expect_answer(ping_id)
        other_id = 1000 + counter
        send({"jsonrpc": "2.0", "id": other_id, "method": "custom/unknown"})
        expect_answer(other_id, want_error_code=-32601)
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})


def ask_client(counter):
    """Sends the three client-feature requests and reads one answer to each."""
    asks = [
        ("roots/list", {}),
        ("sampling/createMessage", {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 10}),
        ("elicitation/create", {"message": "Your name?", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}),
    ]
    for number, (method, params) in enumerate(asks):
        request_id = f"ask-{counter}-{number}"
        send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        message = receive()
        if message is None or message.get("id") != request_id:
            die(f"expected the answer to {request_id!r}, got {message!r}")


def nested(depth):
    value = {"type": "object"}
    for _ in range(depth):
        value = {"type": "object", "properties": {"x": value}}
    return value


def orphan_and_exit():
    pid = os.fork()
    if pid == 0:
        # The grandchild: keeps the inherited stdout open and outlives its parent.
        if os.environ.get("FAULT_PIDFILE"):
            with open(os.environ["FAULT_PIDFILE"] + ".child", "w") as pidfile:
                pidfile.write(str(os.getpid()))
        time.sleep(120)
        os._exit(0)
    time.sleep(0.2)
    sys.stderr.write("fault_server: leaving a child behind\n")
    sys.stderr.flush()
    os._exit(5)


def usage_and_exit():
    lines = int(os.environ.get("FAULT_USAGE", "165"))
    sys.stderr.write("flag provided but not defined: -bogus\n")
    sys.stderr.write("Usage of fault_server:\n")
    for number in range(1, lines - 1):
        sys.stderr.write(f"  -option{number} string\n")
    if lines > 1:
        sys.stderr.write("  (end of usage)\n")
    sys.stderr.flush()
    os._exit(2)


def start_child():
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        held = bytearray(b"\x01") * (int(os.environ.get("FAULT_CHILD_MB", "256")) << 20)
        if os.environ.get("FAULT_PIDFILE"):
            with open(os.environ["FAULT_PIDFILE"] + ".child", "w") as pidfile:
                pidfile.write(str(os.getpid()))
        time.sleep(120)
        del held
        os._exit(0)
    # The probe goes on once the child is ready.
    if os.environ.get("FAULT_PIDFILE"):
        while not os.path.exists(os.environ["FAULT_PIDFILE"] + ".child"):
            time.sleep(0.01)


def main():
    if os.environ.get("FAULT_PIDFILE"):
        with open(os.environ["FAULT_PIDFILE"], "w") as pidfile:
            pidfile.write(str(os.getpid()))
    if "usage" in MODES:
        usage_and_exit()
    sys.stderr.write("fault_server: started\n")
    sys.stderr.flush()
    initialized = False
    counter = 0
    while True:
        message = receive()
        if message is None:
            break
        method = message.get("method")
        counter += 1
        if method == "initialize":
            if "child" in MODES:
                start_child()
            before_answer(counter)
            offered = message["params"]["protocolVersion"]
            send({"jsonrpc": "2.0", "id": message["id"], "result": {
                "protocolVersion": os.environ.get("FAULT_PROTOCOL", offered),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "fault-server", "version": "0.0.1"},
            }})
        elif method == "notifications/initialized":
            initialized = True
        elif method == "tools/list":
            if not initialized:
                die("tools/list before notifications/initialized")
            if "crash" in MODES:
                sys.stderr.write("fatal: the tool registry is corrupt\n")
                sys.stderr.flush()
                sys.exit(7)
            if "hang" in MODES:
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
                while True:
                    time.sleep(1)
            if "orphan" in MODES:
                orphan_and_exit()
            if "huge" in MODES:
                left = int(os.environ.get("FAULT_HUGE", "1000000"))
                block = "x" * 65536
                while left > 0:
                    sys.stdout.write(block[:left])
                    left -= len(block)
                sys.stdout.flush()
                while True:
                    time.sleep(1)
            if "flood" in MODES:
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
                for number in range(200000):
                    send({"jsonrpc": "2.0", "id": f"flood-{number}", "method": "ping"})
                while True:
                    time.sleep(1)
            if "ask" in MODES:
                ask_client(counter)
            if "deep-notice" in MODES:
                send({"jsonrpc": "2.0", "method": "notifications/message",
                      "params": {"level": "info", "data": nested(200)}})
            if "deep-answer" in MODES:
                send({"jsonrpc": "2.0", "id": message["id"],
                      "result": {"tools": [{"name": "deep", "inputSchema": nested(200)}]}})
                continue
            if "error" in MODES:
                send({"jsonrpc": "2.0", "id": message["id"],
                      "error": {"code": -32603, "message": "the tool registry is unavailable"}})
                continue
            before_answer(counter)
            cursor = (message.get("params") or {}).get("cursor")
            start = int(cursor.split("-")[1]) if cursor and cursor.startswith("page-") else 0
            page = TOOLS[start:start + PAGE_SIZE]
            result = {"tools": page}
            if "loop" in MODES:
                result["nextCursor"] = "again"
            elif start + PAGE_SIZE < len(TOOLS):
                result["nextCursor"] = f"page-{start + PAGE_SIZE}"
            send({"jsonrpc": "2.0", "id": message["id"], "result": result})
        elif "id" in message and method is not None:
            send({"jsonrpc": "2.0", "id": message["id"],
                  "error": {"code": -32601, "message": f"unknown method {method}"}})
    if "linger" in MODES:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        while True:
            time.sleep(1)


if __name__ == "__main__":
    main()
